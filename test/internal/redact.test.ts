/**
 * The Redactor on its own: every encoding of a secret, deep values, errors and their cause chains,
 * excerpts. Encodings are computed here with Node's own encoders (Buffer, URLSearchParams,
 * JSON.stringify), not with the Redactor's.
 */
import { Buffer } from 'node:buffer';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  APIError,
  APIUserAbortError,
  RequestValidationError,
  ResponseValidationError,
  TaskCreationOutcomeUnknownError,
} from '../../src/core/errors.js';
import {
  MAX_CAUSE_DEPTH,
  MIN_SUBSTRING_SECRET_CHARS,
  REDACTED,
  Redactor,
} from '../../src/internal/redact.js';

const KEY = 'sk_live+9f8e/7d6c=5b4a é3928';
const SELLER = 'seller-7f3a9c1e';
const redactor = new Redactor([KEY, SELLER]);

const lowerHex = (text: string) => text.replace(/%[0-9A-F]{2}/g, (percent) => percent.toLowerCase());
const unicodeEscapes = (text: string, upper = false) =>
  [...Array(text.length).keys()]
    .map((index) => `\\u${text.charCodeAt(index).toString(16).padStart(4, '0')}`)
    .map((sequence) => (upper ? `\\u${sequence.slice(2).toUpperCase()}` : sequence))
    .join('');
/** Python's `json.dumps` default (`ensure_ascii`): ASCII as is, the rest as `\uxxxx`. */
const asciiOnlyJson = (text: string) =>
  JSON.stringify(text)
    .slice(1, -1)
    .replace(/[^\x20-\x7e]/g, (character) => unicodeEscapes(character));
const unpadded = (text: string) => text.replace(/=+$/, '');

/** Every form of a secret the Redactor promises to recognise, computed independently. */
function encodings(secret: string): Array<[string, string]> {
  const forms: Array<[string, string]> = [
    ['raw', secret],
    ['encodeURIComponent', encodeURIComponent(secret)],
    ['encodeURIComponent, lower-case hex', lowerHex(encodeURIComponent(secret))],
    ['encodeURI', encodeURI(secret)],
    ['form-encoded (URLSearchParams)', new URLSearchParams({ k: secret }).toString().slice(2)],
    ['form-encoded, lower-case hex', lowerHex(new URLSearchParams({ k: secret }).toString().slice(2))],
    ['JSON-escaped', JSON.stringify(secret).slice(1, -1)],
    ['JSON-escaped with \\/ (PHP)', JSON.stringify(secret).slice(1, -1).replace(/\//g, '\\/')],
    ['JSON, ASCII only (Python)', asciiOnlyJson(secret)],
    ['\\uxxxx escapes', unicodeEscapes(secret)],
    ['\\uXXXX escapes', unicodeEscapes(secret, true)],
  ];
  for (const [label, text] of [
    ['secret', secret],
    ['Authorization value', `apikey ${secret}`],
  ] as const) {
    const base64 = Buffer.from(text, 'utf8').toString('base64');
    const base64url = Buffer.from(text, 'utf8').toString('base64url');
    forms.push(
      [`base64 of the ${label}`, base64],
      [`base64 of the ${label}, unpadded`, unpadded(base64)],
      [`base64url of the ${label}`, base64url],
      [`base64url of the ${label}, padded`, base64url.padEnd(Math.ceil(base64url.length / 4) * 4, '=')],
    );
  }
  return forms;
}

/** The text with markers replaced by NUL, so a secret can only be found in what is left. */
const unmarked = (text: string) => text.split(REDACTED).join('\0');

describe('Redactor.text', () => {
  it.each(encodings(KEY))('removes the API key written %s', (_form, encoded) => {
    const shown = redactor.text(`before ${encoded} after`);
    expect(shown).toBe(`before ${REDACTED} after`);
  });

  it('removes the key written with Latin-1 bytes (as the Authorization header carries it) in base64', () => {
    for (const text of [KEY, `apikey ${KEY}`]) {
      const encoded = Buffer.from(text, 'latin1').toString('base64');
      expect(redactor.text(`x ${encoded} y`)).toBe(`x ${REDACTED} y`);
    }
    expect(redactor.text(`q=${encodeURIComponent(KEY).replace('%C3%A9', '%E9')}`)).toBe(`q=${REDACTED}`);
  });

  it('removes the key percent-encoded with mixed-case hex, or only partly encoded', () => {
    const mixed = encodeURIComponent(KEY).replace('%2B', '%2b');
    const partly = KEY.replace('/', '%2F');
    expect(redactor.text(mixed)).toBe(REDACTED);
    expect(redactor.text(partly)).toBe(REDACTED);
  });

  it('removes the key from base64 of a longer text, wherever in it the key sits', () => {
    for (let offset = 0; offset < 3; offset++) {
      const document = `{"note":"${'x'.repeat(offset)}","key":"${KEY}","more":"text after it"}`;
      const shown = redactor.text(Buffer.from(document).toString('base64'));
      expect(shown).toContain(REDACTED);
      for (const piece of shown.split(REDACTED)) {
        const decoded = Buffer.from(piece, 'base64').toString('latin1');
        for (let start = 0; start + 3 <= KEY.length; start++) {
          expect(decoded, `offset ${offset}`).not.toContain(KEY.slice(start, start + 3));
        }
      }
    }
  });

  it('removes the seller id and the key together, longest first', () => {
    const redactorWithNested = new Redactor(['abcdefgh', 'xxabcdefghxx']);
    expect(redactorWithNested.text('1 xxabcdefghxx 2 abcdefgh 3')).toBe(`1 ${REDACTED} 2 ${REDACTED} 3`);
    expect(redactor.text(`seller ${SELLER}, key ${encodeURIComponent(KEY)}`)).toBe(
      `seller ${REDACTED}, key ${REDACTED}`,
    );
  });

  it('leaves text without a secret unchanged, and does nothing without secrets', () => {
    const text = 'GET /tasks?search=sk_live%2B9f8e — aGVsbG8gd29ybGQ= {"a":"\\u0041"}';
    expect(redactor.text(text)).toBe(text);
    expect(new Redactor([undefined, '']).text(KEY)).toBe(KEY);
  });

  // 300 runs of every encoding of secrets up to 24 characters: CPU work, about 20 s on 2 loaded cores.
  it('leaves no encoding of any secret in arbitrary text around it', { timeout: 90_000 }, () => {
    const secret = fc.oneof(
      fc.string({
        unit: fc.constantFrom(...'ab9Z+/= %&?#"\\é€😀\n\t'),
        minLength: MIN_SUBSTRING_SECRET_CHARS,
        maxLength: 24,
      }),
      fc.string({ unit: 'grapheme', minLength: MIN_SUBSTRING_SECRET_CHARS, maxLength: 24 }),
      fc
        .string({ unit: 'binary', minLength: MIN_SUBSTRING_SECRET_CHARS, maxLength: 24 })
        .filter((text) => text.isWellFormed()),
    );
    fc.assert(
      fc.property(
        secret.filter((text) => !text.includes('\0')),
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'binary' }),
        (key, before, after) => {
          const subject = new Redactor([key]);
          for (const [form, encoded] of encodings(key)) {
            expect(unmarked(subject.text(`${before}${encoded}${after}`)), form).not.toContain(encoded);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('Redactor.excerpt', () => {
  it('redacts before cutting, so a key across the cut leaves no prefix behind', () => {
    for (const before of [1985, 1990, 1995, 1999]) {
      const shown = redactor.excerpt(`${'x'.repeat(before)}${KEY}${'y'.repeat(100)}`, 2000);
      expect(shown.length).toBeLessThanOrEqual(2001);
      expect(shown.endsWith('…')).toBe(true);
      for (let length = 1; length <= KEY.length; length++) expect(shown).not.toContain(KEY.slice(0, length));
    }
    expect(redactor.excerpt(`${'x'.repeat(1990)}${KEY}yyy`, 2000)).toBe(`${'x'.repeat(1990)}${REDACTED}…`);
    expect(redactor.excerpt(`${'x'.repeat(1995)}${KEY}yyy`, 2000)).toBe(`${'x'.repeat(1995)}…`);
  });

  it('returns short text whole, and never splits a surrogate pair', () => {
    expect(redactor.excerpt(`ok ${KEY}`, 2000)).toBe(`ok ${REDACTED}`);
    expect(redactor.excerpt('ab😀cd', 3)).toBe('ab…');
    expect(redactor.excerpt('abcdef', 3)).toBe('abc…');
  });
});

describe('Redactor.value', () => {
  it('copies deeply, redacting every string and key, without touching the input', () => {
    const input = {
      message: `bad key ${encodeURIComponent(KEY)}`,
      [`key-${SELLER}`]: [1, true, null, { nested: `apikey ${KEY}` }],
    };
    const before = structuredClone(input);
    expect(redactor.value(input)).toEqual({
      message: `bad key ${REDACTED}`,
      [`key-${REDACTED}`]: [1, true, null, { nested: `apikey ${REDACTED}` }],
    });
    expect(input).toEqual(before);
  });

  it('keeps key order and a __proto__ key as data, and marks only real cycles', () => {
    const parsed = JSON.parse(`{"b":1,"__proto__":{"polluted":"${SELLER}"},"a":2}`) as Record<
      string,
      unknown
    >;
    const copy = redactor.value(parsed) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(['b', '__proto__', 'a']);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({ polluted: REDACTED });
    const shared = { k: KEY };
    const cyclic: Record<string, unknown> = { left: shared, right: shared };
    cyclic.self = cyclic;
    expect(redactor.value(cyclic)).toEqual({
      left: { k: REDACTED },
      right: { k: REDACTED },
      self: '[circular]',
    });
  });

  it('copies a body nested 2,000 and 100,000 levels deep without a RangeError', () => {
    for (const depth of [2000, 100_000]) {
      const body = JSON.parse(`${'['.repeat(depth)}"${KEY}"${']'.repeat(depth)}`) as unknown;
      let current = redactor.value(body);
      for (let level = 0; level < depth; level++) current = (current as unknown[])[0];
      expect(current).toBe(REDACTED);
    }
  });

  it('turns errors and headers inside a value into redacted copies', () => {
    const copy = redactor.value({
      error: new TypeError(`bad ${KEY}`),
      headers: new Headers({ authorization: `apikey ${KEY}`, 'x-echo': SELLER }),
    }) as { error: Error; headers: Record<string, string> };
    expect(copy.error).toBeInstanceOf(Error);
    expect(copy.error.name).toBe('TypeError');
    expect(copy.error.message).toBe(`bad ${REDACTED}`);
    expect(copy.headers).toEqual({ authorization: REDACTED, 'x-echo': REDACTED });
  });

  it('leaves no encoding of a secret in any string or key of a nested structure', () => {
    const SLOT = '\u0000slot\u0000';
    const leaf = fc.oneof(fc.string(), fc.constant(SLOT), fc.integer(), fc.boolean(), fc.constant(null));
    const { node } = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(fc.oneof(fc.string(), fc.constant(SLOT)), tie('node'), { maxKeys: 4 }),
      ),
    }));
    const fill = (value: unknown, encoded: string): unknown =>
      JSON.parse(
        JSON.stringify(value)
          .split(JSON.stringify(SLOT).slice(1, -1))
          .join(JSON.stringify(encoded).slice(1, -1)),
      );
    const strings = (value: unknown): string[] => {
      const found: string[] = [];
      const pending: unknown[] = [value];
      while (pending.length > 0) {
        const current = pending.pop();
        if (typeof current === 'string') found.push(current);
        else if (typeof current === 'object' && current !== null) {
          for (const [key, item] of Object.entries(current)) {
            found.push(key);
            pending.push(item);
          }
        }
      }
      return found;
    };
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: MIN_SUBSTRING_SECRET_CHARS, maxLength: 16 }),
        node,
        (key, shape) => {
          const subject = new Redactor([key]);
          for (const [form, encoded] of encodings(key)) {
            for (const text of strings(subject.value(fill(shape, `<${encoded}>`)))) {
              expect(unmarked(text), form).not.toContain(encoded);
            }
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('Redactor.error', () => {
  /** Everything a log pipeline or a developer might print of an error, its causes included. */
  const renderings = (error: unknown): string =>
    [
      String(error),
      inspect(error, { depth: 30, showHidden: true }),
      JSON.stringify(error) ?? '',
      ...(function* chain() {
        let current: unknown = error;
        for (let depth = 0; depth < 20 && current instanceof Error; depth++) {
          yield `${current.name} ${current.message} ${current.stack ?? ''}`;
          current = current.cause;
        }
      })(),
    ].join('\n');
  const expectClean = (error: unknown) => {
    const shown = renderings(error);
    for (const [form, encoded] of [...encodings(KEY), ...encodings(SELLER)]) {
      expect(shown, form).not.toContain(encoded);
    }
  };

  it('redacts an SDK error in place: message, stack, url, serverMessage, body and headers, keeping its class', () => {
    const error = new APIError({
      status: 400,
      headers: new Headers({ 'x-echo': `apikey ${KEY}`, 'set-cookie': `s=${SELLER}` }),
      body: {
        message: `bad key ${encodeURIComponent(KEY)}`,
        echo: Buffer.from(`apikey ${KEY}`).toString('base64'),
      },
      method: 'GET',
      url: `https://h.test/tasks/wallet-balance?key=${encodeURIComponent(KEY)}&seller=${SELLER}`,
    });
    expect(renderings(error)).toContain(encodeURIComponent(KEY));
    const scrubbed = redactor.error(error);
    expect(scrubbed).toBe(error);
    expect(scrubbed).toBeInstanceOf(APIError);
    expect(scrubbed.name).toBe('APIError');
    expect(scrubbed.status).toBe(400);
    expect(scrubbed.url).toBe(`https://h.test/tasks/wallet-balance?key=${REDACTED}&seller=${REDACTED}`);
    expect(scrubbed.message).toContain(`GET /tasks/wallet-balance?key=${REDACTED}`);
    expect(scrubbed.stack).toContain(`key=${REDACTED}`);
    expect(scrubbed.headers.get('set-cookie')).toBe(REDACTED);
    expectClean(scrubbed);
  });

  it('redacts the body and issues of validation errors in place', () => {
    const response = redactor.error(
      new ResponseValidationError({
        method: 'GET',
        url: 'https://h.test/x',
        status: 200,
        issues: [{ path: 'sellerId', message: `unexpected ${SELLER}`, code: 'custom' }],
        body: { sellerId: SELLER, note: `apikey ${KEY}` },
      }),
    );
    expect(response).toBeInstanceOf(ResponseValidationError);
    expect(response.body).toEqual({ sellerId: REDACTED, note: `apikey ${REDACTED}` });
    expect(response.issues[0]?.message).toBe(`unexpected ${REDACTED}`);
    const request = redactor.error(
      new RequestValidationError('tasks.create', [
        { path: 'totalAmount', message: `bad ${SELLER}`, code: 'custom' },
      ]),
    );
    expect(request).toBeInstanceOf(RequestValidationError);
    expectClean(request);
  });

  it.each(encodings(KEY))(
    'removes the key written %s from message, stack and every cause',
    (_form, encoded) => {
      const socket = Object.assign(new Error(`read ECONNRESET near ${encoded}`), {
        code: 'ECONNRESET',
        errno: -104,
        syscall: 'read',
        data: `X-Echo: ${encoded}`,
      });
      const fetchFailed = new TypeError(`fetch failed for ${encoded}`, { cause: socket });
      const error = new APIConnectionError({
        method: 'GET',
        url: `https://h.test/tasks/x?key=${KEY}`,
        attempts: 1,
        code: 'ECONNRESET',
        cause: fetchFailed,
      });
      expect(renderings(error)).toContain(encoded);
      const scrubbed = redactor.error(error);
      expectClean(scrubbed);
      expect(scrubbed instanceof APIConnectionError).toBe(true);
      const cause = scrubbed.cause as Error & { cause: Error & Record<string, unknown> };
      expect(cause).not.toBe(fetchFailed);
      expect(cause.name).toBe('TypeError');
      expect(cause.message).toBe(`fetch failed for ${REDACTED}`);
      expect(cause.cause.code).toBe('ECONNRESET');
      expect(cause.cause.errno).toBe(-104);
      expect(cause.cause.syscall).toBe('read');
      expect(cause.cause.data).toBe(`X-Echo: ${REDACTED}`);
      expect(fetchFailed.message).toContain(encoded);
    },
  );

  it('copies AggregateError members, DOMException names and non-error causes, redacted', () => {
    const aggregate = new AggregateError(
      [Object.assign(new Error(`connect ECONNREFUSED ${SELLER}`), { code: 'ECONNREFUSED' }), `plain ${KEY}`],
      `all failed for ${KEY}`,
    );
    const abort = new DOMException(`aborted with ${KEY}`, 'AbortError');
    const outcome = new TaskCreationOutcomeUnknownError({
      orderNumber: SELLER,
      reason: `reset ${KEY}`,
      cause: new APIConnectionError({
        method: 'POST',
        url: 'https://h.test/tasks',
        attempts: 1,
        cause: aggregate,
      }),
    });
    const scrubbed = redactor.error(outcome);
    expectClean(scrubbed);
    expect(scrubbed.orderNumber).toBe(REDACTED);
    const connection = scrubbed.cause as APIConnectionError;
    expect(connection).toBeInstanceOf(APIConnectionError);
    const members = (connection.cause as { errors: unknown[] }).errors;
    expect((members[0] as { code: string }).code).toBe('ECONNREFUSED');
    expect(members[1]).toBe(`plain ${REDACTED}`);
    const abortCopy = redactor.error(new Error('outer', { cause: abort })) as Error & { cause: Error };
    expect(abortCopy.cause.name).toBe('AbortError');
    expect(abortCopy.cause.message).toBe(`aborted with ${REDACTED}`);
    expect(redactor.error(`thrown ${KEY}`)).toBe(`thrown ${REDACTED}`);
    expect(redactor.error({ message: KEY })).toEqual({ message: REDACTED });
  });

  it('bounds a cause chain that is too long or cyclic', () => {
    const first = new Error(`level 0 ${KEY}`);
    let last = first;
    for (let level = 1; level < 50; level++) {
      const next = new Error(`level ${level} ${KEY}`);
      (last as { cause?: unknown }).cause = next;
      last = next;
    }
    (last as { cause?: unknown }).cause = first;
    let current: unknown = redactor.error(first);
    let links = 0;
    while (current instanceof Error && current.cause !== undefined) {
      current = current.cause;
      links++;
    }
    expect(links).toBe(MAX_CAUSE_DEPTH + 1);
    expect((current as Error).message).toBe(`Cause chain cut after ${MAX_CAUSE_DEPTH} levels`);
    expectClean(redactor.error(first));
  });

  it("leaves the caller's own abort reason as the cause of an APIUserAbortError", () => {
    const reason = new DOMException('stopped by the caller', 'AbortError');
    const error = new APIUserAbortError({
      method: 'GET',
      url: `https://h.test/tasks/${SELLER}`,
      cause: reason,
    });
    const scrubbed = redactor.error(error);
    expect(scrubbed.cause).toBe(reason);
    expect(scrubbed.url).toBe(`https://h.test/tasks/${REDACTED}`);
  });

  it('works unbound, as a promise rejection handler', async () => {
    const rejected = Promise.reject(new RangeError(`bad ${KEY}`)).catch(redactor.error);
    expect(((await rejected) as Error).message).toBe(`bad ${REDACTED}`);
  });

  it('returns a plain copy of a foreign error and leaves the original as it was', () => {
    const original = Object.assign(new RangeError(`bad ${KEY}`), { code: 'ERR_X' });
    const copy = redactor.error(original) as Error & { code?: string };
    expect(copy).not.toBe(original);
    expect(copy.name).toBe('RangeError');
    expect(copy.code).toBe('ERR_X');
    expect(copy.message).toBe(`bad ${REDACTED}`);
    expect(original.message).toBe(`bad ${KEY}`);
  });
});
