/**
 * Removes the client's secrets (API key, seller id) from anything that may be shown: error messages,
 * stacks, causes and bodies, log lines, inspected objects.
 *
 * By what a value is: a credential header (`authorization`, `x-seller-id`, …) or field (`sellerId`,
 * `apiKey`, …, `isCredentialField`) is replaced whatever it holds. By what it contains: a secret of at
 * least {@link MIN_SUBSTRING_SECRET_CHARS} characters is also removed wherever it appears, raw,
 * percent-encoded (UTF-8 or Latin-1 bytes, `+` for space), JSON-escaped (`\uXXXX` too), and in
 * base64/base64url of the secret and of `apikey <secret>`, also mixed within one occurrence. A shorter
 * secret (a seller id `e`, `1`, `test`) could be any word, digit or part of an id: searching for it would
 * corrupt ids, keys and JSON, so it is removed where it is a credential only. Not covered: double
 * encodings (`%252B`), HTML entities.
 */
import { hasKind } from '../core/errors/kinds.js';
import type { DeliveryError } from '../core/errors.js';

/** Placeholder written where a secret was. */
export const REDACTED = '[redacted]';

export const SECRET_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'x-seller-id',
  'cookie',
  'set-cookie',
]);

/**
 * Shortest secret removed wherever it appears in text (characters): 8. A shorter one is removed only where it
 * is a credential (a credential header or field), never as a part of other text.
 */
export const MIN_SUBSTRING_SECRET_CHARS = 8;

/** Credential field and header names, lower case without `-` and `_` (`x-seller-id` → `xsellerid`). */
const CREDENTIAL_FIELDS: ReadonlySet<string> = new Set([
  'authorization',
  'proxyauthorization',
  'xsellerid',
  'sellerid',
  'apikey',
  'xapikey',
  'cookie',
  'setcookie',
]);

/** Fields whose value keeps its scheme when replaced: `apikey [redacted]`, `Bearer [redacted]`. */
const SCHEMED_FIELDS: ReadonlySet<string> = new Set(['authorization', 'proxyauthorization']);

const fieldKey = (name: string): string => name.toLowerCase().replace(/[-_]/g, '');

/**
 * True for a field or header name that holds a credential (`sellerId`, `x-seller-id`, `api_key`,
 * `Authorization`, …).
 */
export function isCredentialField(name: string): boolean {
  return CREDENTIAL_FIELDS.has(fieldKey(name));
}

/** A credential field's value replaced: {@link REDACTED}, after the scheme of an `authorization` value. */
export function maskedCredential(name: string, value: string): string {
  if (!SCHEMED_FIELDS.has(fieldKey(name))) return REDACTED;
  const scheme = /^([A-Za-z][\w.+-]*) +\S/.exec(value)?.[1];
  return scheme === undefined ? REDACTED : `${scheme} ${REDACTED}`;
}

/** Links of a `cause` chain (and levels of `AggregateError.errors`) kept; a deeper link becomes a marker. */
export const MAX_CAUSE_DEPTH = 8;

/** Shortest base64 core of a secret matched alone; shorter ones would match unrelated base64. */
export const MIN_BASE64_CORE = 12;

const CIRCULAR = '[circular]';

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

function anyCaseHex(digits: string): string {
  return digits.replace(/[a-f]/gi, (digit) => `[${digit.toLowerCase()}${digit.toUpperCase()}]`);
}

function hex(value: number, width: number): string {
  return value.toString(16).toUpperCase().padStart(width, '0');
}

/** A pattern for one code point of a secret, in each of its encodings. */
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

function binary(bytes: Uint8Array): string {
  let result = '';
  for (const byte of bytes) result += String.fromCharCode(byte);
  return result;
}

/**
 * The base64 text of the secret and of `apikey <secret>`: padded, unpadded, base64url, and
 * position-independent cores.
 */
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
    // The characters made only of the secret's bits, whatever its offset in a 3-byte group.
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

function read(target: object, key: PropertyKey): unknown {
  try {
    return Reflect.get(target, key);
  } catch {
    return undefined;
  }
}

/** One step of {@link Redactor.value}'s walk; `field`: the credential field the value sits under, if any. */
type CopyStep = { source: unknown; assign: (copy: unknown) => void; field?: string } | { leave: object };

/**
 * Replaces every occurrence of the given secrets, in every encoding listed in this module, by
 * {@link REDACTED}. Never mutates its input, except {@link Redactor.error} on the SDK's own errors.
 */
export class Redactor {
  /**
   * One pattern for every secret in every encoding, longest secret first; `undefined` when there is no
   * secret.
   */
  readonly #pattern: RegExp | undefined;

  constructor(secrets: readonly (string | undefined)[]) {
    const encoder = new TextEncoder();
    const distinct = [
      ...new Set(
        secrets.filter(
          (secret): secret is string =>
            typeof secret === 'string' && secret.length >= MIN_SUBSTRING_SECRET_CHARS,
        ),
      ),
    ].sort((a, b) => b.length - a.length);
    const literals = distinct
      .flatMap((secret) => base64Variants(secret, encoder))
      .filter((variant, index, all) => variant !== '' && all.indexOf(variant) === index)
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp);
    const flexible = distinct.map((secret) =>
      [...secret].map((character) => characterPattern(character, encoder)).join(''),
    );
    const alternatives = [...literals, ...flexible];
    this.#pattern = alternatives.length === 0 ? undefined : new RegExp(alternatives.join('|'), 'g');
    this.error = this.error.bind(this);
  }

  /** The text with every secret, in any of its encodings, replaced by {@link REDACTED}. */
  text = (text: string): string => {
    if (this.#pattern === undefined || typeof text !== 'string') return text;
    return text.replace(this.#pattern, REDACTED);
  };

  /** At most `maxChars` characters of the redacted text, then `…` if cut; never cuts a pair or the marker. */
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
   * A deep copy with every credential field replaced (`isCredentialField`) and secrets replaced in every
   * other string and key; a cycle becomes `'[circular]'`.
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
      const { source, assign, field } = step;
      if (field !== undefined && (typeof source === 'string' || typeof source === 'number')) {
        assign(maskedCredential(field, String(source)));
      } else if (typeof source === 'string') assign(this.text(source));
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
            ...(field === undefined ? {} : { field }),
          });
        }
      } else {
        const copy: Record<string, unknown> = {};
        assign(copy);
        enclosing.add(source);
        steps.push({ leave: source });
        const entries = Object.entries(source).map(([key, item]) => [key, this.text(key), item] as const);
        for (const [, key] of entries) define(copy, key, undefined, true);
        for (let index = entries.length - 1; index >= 0; index--) {
          const [original, key, item] = entries[index] as readonly [string, string, unknown];
          const under = field ?? (isCredentialField(original) ? original : undefined);
          steps.push({
            source: item,
            assign: (redacted) => define(copy, key, redacted, true),
            ...(under === undefined ? {} : { field: under }),
          });
        }
      }
    }
    return result;
  };

  /**
   * The error with every secret removed from all it shows (message, stack, fields, body, headers, cause
   * chain to {@link MAX_CAUSE_DEPTH} levels). SDK errors are redacted in place, keeping their class (an
   * `APIUserAbortError`'s cause, the caller's `signal.reason`, is left as is); others become plain copies.
   */
  error<T extends DeliveryError>(error: T): T;
  error(error: unknown): unknown;
  error(error: unknown): unknown {
    // By the kind chain `instanceof` reads, not the classes: ./postgres's CommonJS build bundles this module
    // and carries no copy of them.
    if (isErrorLike(error))
      return hasKind(error, 'DeliveryError') ? this.#scrubInPlace(error, 0) : this.#copyError(error, 0);
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

  headersObject = (headers: Headers): Record<string, string> => {
    const result: Record<string, string> = {};
    this.headers(headers).forEach((value, name) => {
      result[name] = value;
    });
    return result;
  };

  #link(value: unknown, depth: number): unknown {
    if (depth > MAX_CAUSE_DEPTH) return new Error(`Cause chain cut after ${MAX_CAUSE_DEPTH} levels`);
    if (isErrorLike(value))
      return hasKind(value, 'DeliveryError')
        ? this.#scrubInPlace(value, depth)
        : this.#copyError(value, depth);
    return this.value(value);
  }

  #scrubInPlace<T extends Error>(error: T, depth: number): T {
    // The cause of an abort is the caller's own `signal.reason`: kept as is, so `cause === reason` holds.
    const keepCause = hasKind(error, 'APIUserAbortError');
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
      else if (
        typeof current === 'object' &&
        current !== null &&
        (Array.isArray(current) || isPlainObject(current))
      ) {
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

  /**
   * A plain `Error` standing for a foreign error: name, code, message, stack, own primitives, cause and
   * errors.
   */
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
      if (typeof item === 'string') {
        define(
          copy,
          this.text(key),
          isCredentialField(key) ? maskedCredential(key, item) : this.text(item),
          true,
        );
      } else if (typeof item === 'number' || typeof item === 'boolean')
        define(copy, this.text(key), item, true);
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

function define(target: object, key: string, value: unknown, enumerable: boolean): void {
  Object.defineProperty(target, key, { value, enumerable, writable: true, configurable: true });
}
