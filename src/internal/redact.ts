/**
 * Removes the client's secrets (API key, seller id) from anything that may be shown: error messages
 * and bodies, log lines, inspected objects.
 */

/** Placeholder written where a secret was. */
export const REDACTED = '[redacted]';

/** Header names whose values are secrets, lower-case. */
export const SECRET_HEADERS: ReadonlySet<string> = new Set(['authorization', 'x-seller-id', 'cookie', 'set-cookie']);

/** Replaces every occurrence of the given secrets in strings, deeply, without mutating its input. */
export class Redactor {
  readonly #secrets: readonly string[];

  constructor(secrets: readonly (string | undefined)[]) {
    // Longest first, so a secret containing another is removed whole.
    this.#secrets = [
      ...new Set(secrets.filter((secret): secret is string => typeof secret === 'string' && secret !== '')),
    ].sort((a, b) => b.length - a.length);
  }

  /** The text with every secret replaced by {@link REDACTED}. */
  text = (text: string): string => {
    let result = text;
    for (const secret of this.#secrets) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    return result;
  };

  /** A deep copy of a JSON-like value with secrets replaced in every string (keys included). Cycles are cut. */
  value = (value: unknown, seen: WeakSet<object> = new WeakSet()): unknown => {
    if (typeof value === 'string') return this.text(value);
    if (typeof value !== 'object' || value === null) return value;
    if (seen.has(value)) return '[circular]';
    seen.add(value);
    if (Array.isArray(value)) return value.map((item) => this.value(item, seen));
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(copy, this.text(key), {
        value: this.value(item, seen),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  };

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
}
