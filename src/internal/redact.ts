/**
 * Removes the client's secrets (API key, seller id) from anything that may be shown: error messages,
 * stacks, causes and bodies, log lines, inspected objects.
 *
 * A server, proxy or library may echo a secret in another form than it was sent, so each secret is
 * recognised in every encoding below, also mixed within one occurrence:
 *
 * - raw;
 * - percent-encoded, as `encodeURIComponent`, `encodeURI` or a form (`URLSearchParams`: space as `+`)
 *   writes it, hex digits in either case, from UTF-8 bytes (and Latin-1 bytes, for U+0080…U+00FF);
 * - JSON-escaped: `\"`, `\\`, `\/`, `\n` and the other short escapes, and `\uXXXX` (either case) for any
 *   character (as `JSON.stringify`, Python's `ensure_ascii` or PHP's `json_encode` write it);
 * - base64 and base64url, padded or not, of the secret and of `apikey <secret>` (the Authorization
 *   value), in UTF-8 and Latin-1 bytes; and the part of the secret's base64 that stays the same
 *   wherever it sits inside a longer encoded text (at least {@link MIN_BASE64_CORE} characters).
 *
 * Not covered: double encodings (`%252B`), HTML entities, other byte encodings of non-Latin-1 text.
 */
import { type DeliveryError, isAPIUserAbortError, isDeliveryError } from '../core/errors.js';

/** Placeholder written where a secret was. */
export const REDACTED = '[redacted]';

/** Header names whose values are secrets, lower-case. */
export const SECRET_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'x-seller-id',
  'cookie',
  'set-cookie',
]);

/** Links of a `cause` chain (and levels of `AggregateError.errors`) kept; a deeper link becomes a marker. */
export const MAX_CAUSE_DEPTH = 8;

/**
 * Shortest base64 text matched on its own where a secret sits inside a longer encoded text; shorter
 * fragments would match unrelated base64 by chance.
 */
export const MIN_BASE64_CORE = 12;

const CIRCULAR = '[circular]';

/** JSON's short escapes (RFC 8259 § 7), `\/` included. */
const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '/': '\\/',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/** A pattern for hex digits that accepts either case: `2b` → `2[bB]`. */
function anyCaseHex(digits: string): string {
  return digits.replace(/[a-f]/gi, (digit) => `[${digit.toLowerCase()}${digit.toUpperCase()}]`);
}

function hex(value: number, width: number): string {
  return value.toString(16).toUpperCase().padStart(width, '0');
}

/**
 * A pattern for one code point of a secret: the character itself, its percent-encoded UTF-8 (and
 * Latin-1) bytes, `+` for a space, its JSON escapes.
 */
function characterPattern(character: string, encoder: TextEncoder): string {
  const forms = new Set<string>([escapeRegExp(character)]);
  forms.add([...encoder.encode(character)].map((byte) => `%${anyCaseHex(hex(byte, 2))}`).join(''));
  const codePoint = character.codePointAt(0) ?? 0;
  if (codePoint >= 0x80 && codePoint <= 0xff) forms.add(`%${anyCaseHex(hex(codePoint, 2))}`);
  if (character === ' ') forms.add('\\+');
  const short = SHORT_ESCAPES[character];
  if (short !== undefined) forms.add(escapeRegExp(short));
  const units = [...Array(character.length).keys()].map((index) => character.charCodeAt(index));
  forms.add(units.map((unit) => `\\\\u${anyCaseHex(hex(unit, 4))}`).join(''));
  return `(?:${[...forms].join('|')})`;
}

/** The bytes of a text as a binary string (one char per byte), for `btoa`. */
function binary(bytes: Uint8Array): string {
  let result = '';
  for (const byte of bytes) result += String.fromCharCode(byte);
  return result;
}

/** The base64 text of the secret and of `apikey <secret>`: padded, unpadded, base64url, and position-independent cores. */
function base64Variants(secret: string, encoder: TextEncoder): string[] {
  const encodings = [encoder.encode(secret)];
  if ([...secret].every((character) => (character.codePointAt(0) ?? 0) <= 0xff)) {
    encodings.push(Uint8Array.from(secret, (character) => character.charCodeAt(0)));
  }
  const variants: string[] = [];
  const add = (base64: string) => {
    const unpadded = base64.replace(/=+$/, '');
    for (const text of [base64, unpadded]) variants.push(text, text.replace(/\+/g, '-').replace(/\//g, '_'));
  };
  for (const bytes of encodings) {
    add(btoa(binary(bytes)));
    add(btoa(`apikey ${binary(bytes)}`));
    // Inside a longer text the secret starts 0, 1 or 2 bytes into a 3-byte group; the characters
    // made only of the secret's bits are the same whatever surrounds it.
    for (let offset = 0; offset < 3; offset++) {
      const shifted = btoa('\0'.repeat(offset) + binary(bytes));
      const core = shifted.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
      if (core.length >= MIN_BASE64_CORE) add(core);
    }
  }
  return variants;
}

function isErrorLike(value: unknown): value is Error {
  return value instanceof Error || Object.prototype.toString.call(value) === '[object Error]';
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Reads a property that may be a throwing getter (DOMException, host objects). */
function read(target: object, key: PropertyKey): unknown {
  try {
    return Reflect.get(target, key);
  } catch {
    return undefined;
  }
}

/** A step of the iterative deep copy in {@link Redactor.value}. */
type CopyStep = { source: unknown; assign: (copy: unknown) => void } | { leave: object };

/**
 * Replaces every occurrence of the given secrets, in every encoding listed in this module, by
 * {@link REDACTED}. Never mutates its input, except {@link Redactor.error} on the SDK's own errors.
 */
export class Redactor {
  /** One pattern for every secret in every encoding, longest secret first; `undefined` when there is no secret. */
  readonly #pattern: RegExp | undefined;

  constructor(secrets: readonly (string | undefined)[]) {
    const encoder = new TextEncoder();
    // Longest first, so a secret containing another is removed whole.
    const distinct = [
      ...new Set(secrets.filter((secret): secret is string => typeof secret === 'string' && secret !== '')),
    ].sort((a, b) => b.length - a.length);
    const literals = distinct
      .flatMap((secret) => base64Variants(secret, encoder))
      .filter((variant, index, all) => variant !== '' && all.indexOf(variant) === index)
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp);
    const flexible = distinct.map((secret) =>
      [...secret].map((character) => characterPattern(character, encoder)).join(''),
    );
    // Literal base64 forms first (the longest of them contain whole secrets' worth of text), then the
    // per-character patterns, longest secret first.
    const alternatives = [...literals, ...flexible];
    this.#pattern = alternatives.length === 0 ? undefined : new RegExp(alternatives.join('|'), 'g');
    // Usable unbound (`.catch(redactor.error)`), like the other members.
    this.error = this.error.bind(this);
  }

  /** The text with every secret, in any of its encodings, replaced by {@link REDACTED}. */
  text = (text: string): string => {
    if (this.#pattern === undefined || typeof text !== 'string') return text;
    return text.replace(this.#pattern, REDACTED);
  };

  /**
   * At most `maxChars` characters of the redacted text, followed by `…` when it was cut. Redacts before
   * cutting, so a secret across the cut cannot leave a prefix behind; never cuts a surrogate pair or
   * the {@link REDACTED} marker in two.
   */
  excerpt = (text: string, maxChars: number): string => {
    const redacted = this.text(text);
    if (redacted.length <= maxChars) return redacted;
    let end = Math.max(0, Math.floor(maxChars));
    const marker = redacted.lastIndexOf(REDACTED, end);
    if (marker !== -1 && marker + REDACTED.length > end) end = marker;
    const last = redacted.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end -= 1;
    return `${redacted.slice(0, end)}…`;
  };

  /**
   * A deep copy of a JSON-like value with secrets replaced in every string, keys included. Iterative,
   * so any depth is safe; a reference to an enclosing object becomes `'[circular]'`. Errors inside
   * become plain redacted copies ({@link Redactor.error}), `Headers` a masked plain object.
   */
  value = (value: unknown): unknown => {
    let result: unknown;
    const enclosing = new Set<object>();
    const steps: CopyStep[] = [
      {
        source: value,
        assign: (copy) => {
          result = copy;
        },
      },
    ];
    for (let step = steps.pop(); step !== undefined; step = steps.pop()) {
      if ('leave' in step) {
        enclosing.delete(step.leave);
        continue;
      }
      const { source, assign } = step;
      if (typeof source === 'string') assign(this.text(source));
      else if (typeof source !== 'object' || source === null) assign(source);
      else if (enclosing.has(source)) assign(CIRCULAR);
      else if (isErrorLike(source)) assign(this.#copyError(source, 0));
      else if (source instanceof Headers) assign(this.headersObject(source));
      else if (Array.isArray(source)) {
        const copy: unknown[] = new Array(source.length);
        assign(copy);
        enclosing.add(source);
        steps.push({ leave: source });
        for (let index = source.length - 1; index >= 0; index--) {
          steps.push({
            source: source[index],
            assign: (item) => {
              copy[index] = item;
            },
          });
        }
      } else {
        const copy: Record<string, unknown> = {};
        assign(copy);
        enclosing.add(source);
        steps.push({ leave: source });
        // Keys defined first, in order; values filled in as the steps run.
        const entries = Object.entries(source).map(([key, item]) => [this.text(key), item] as const);
        for (const [key] of entries) define(copy, key, undefined, true);
        for (let index = entries.length - 1; index >= 0; index--) {
          const [key, item] = entries[index] as readonly [string, unknown];
          steps.push({ source: item, assign: (redacted) => define(copy, key, redacted, true) });
        }
      }
    }
    return result;
  };

  /**
   * The error with every secret removed from everything it shows: `message`, `stack`, its own string
   * properties (`url`, `serverMessage`, …), `body`, `headers`, `issues`, and its `cause` chain and
   * `AggregateError.errors`, up to {@link MAX_CAUSE_DEPTH} levels (deeper links become a marker error).
   *
   * - An SDK error (`DeliveryError`, also across realms) is redacted in place and returned, so it keeps
   *   its class and fields; SDK errors in its chain likewise. The `cause` of an `APIUserAbortError` is
   *   the caller's own `signal.reason` and is left as it is.
   * - Any other error in the chain (a fetch `TypeError`, a `DOMException`, a socket error) is replaced
   *   by a plain `Error` keeping `name`, `code`, the redacted `message` and `stack`, its own primitive
   *   properties (`errno`, `syscall`, …) and, recursively, its `cause` and `errors`.
   * - A string comes back redacted; any other value as {@link Redactor.value} copies it.
   */
  error<T extends DeliveryError>(error: T): T;
  error(error: unknown): unknown;
  error(error: unknown): unknown {
    if (isErrorLike(error)) return isDeliveryError(error) ? this.#scrubInPlace(error, 0) : this.#copyError(error, 0);
    return this.value(error);
  }

  /** A copy of headers with secret headers masked and secrets removed from the others. */
  headers = (headers: Headers): Headers => {
    const copy = new Headers();
    headers.forEach((value, name) => {
      copy.set(name, SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : this.text(value));
    });
    return copy;
  };

  /** Headers as a plain object for logs, secret ones masked. */
  headersObject = (headers: Headers): Record<string, string> => {
    const result: Record<string, string> = {};
    this.headers(headers).forEach((value, name) => {
      result[name] = value;
    });
    return result;
  };

  /** A link of a cause chain: SDK errors redacted in place, other errors copied, anything else copied as a value. */
  #link(value: unknown, depth: number): unknown {
    if (depth > MAX_CAUSE_DEPTH) return new Error(`Cause chain cut after ${MAX_CAUSE_DEPTH} levels`);
    if (isErrorLike(value))
      return isDeliveryError(value) ? this.#scrubInPlace(value, depth) : this.#copyError(value, depth);
    return this.value(value);
  }

  #scrubInPlace<T extends Error>(error: T, depth: number): T {
    // The cause of an abort is the caller's own `signal.reason`: kept as is, so `cause === reason` holds.
    const keepCause = isAPIUserAbortError(error);
    for (const key of Object.getOwnPropertyNames(error)) {
      const descriptor = Object.getOwnPropertyDescriptor(error, key);
      if (descriptor === undefined || !descriptor.configurable || (key === 'cause' && keepCause)) continue;
      const current = read(error, key);
      let redacted: unknown;
      if (key === 'cause') redacted = this.#link(current, depth + 1);
      else if (key === 'errors' && Array.isArray(current))
        redacted = current.map((item) => this.#link(item, depth + 1));
      else if (typeof current === 'string') redacted = this.text(current);
      else if (current instanceof Headers) redacted = this.headers(current);
      else if (typeof current === 'object' && current !== null && (Array.isArray(current) || isPlainObject(current))) {
        redacted = this.value(current);
      } else continue;
      Object.defineProperty(error, key, {
        value: redacted,
        enumerable: descriptor.enumerable ?? false,
        writable: descriptor.writable ?? true,
        configurable: true,
      });
    }
    return error;
  }

  /** A plain `Error` standing for a foreign error: name, code, message, stack, own primitives, cause and errors. */
  #copyError(error: Error, depth: number): Error {
    const copy = new Error(this.text(String(read(error, 'message') ?? '')));
    const hidden = (key: string, value: unknown) => define(copy, key, value, false);
    hidden('name', this.text(String(read(error, 'name') ?? 'Error')));
    const stack = read(error, 'stack');
    hidden('stack', typeof stack === 'string' ? this.text(stack) : undefined);
    const code = read(error, 'code');
    if (typeof code === 'string') define(copy, 'code', this.text(code), true);
    else if (typeof code === 'number') define(copy, 'code', code, true);
    for (const key of Object.keys(error)) {
      if (['message', 'name', 'stack', 'code', 'cause', 'errors'].includes(key)) continue;
      const item = read(error, key);
      if (typeof item === 'string') define(copy, this.text(key), this.text(item), true);
      else if (typeof item === 'number' || typeof item === 'boolean') define(copy, this.text(key), item, true);
    }
    if ('cause' in error) hidden('cause', this.#link(read(error, 'cause'), depth + 1));
    const errors = read(error, 'errors');
    if (Array.isArray(errors))
      hidden(
        'errors',
        errors.map((item) => this.#link(item, depth + 1)),
      );
    return copy;
  }
}

/** Defines a data property (safe for keys like `__proto__`). */
function define(target: object, key: string, value: unknown, enumerable: boolean): void {
  Object.defineProperty(target, key, { value, enumerable, writable: true, configurable: true });
}
