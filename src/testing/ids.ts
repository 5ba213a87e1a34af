/**
 * Identifiers the mock hands out. Task ids look like MongoDB ObjectIds (24 lower-case hex
 * characters), which is what the service's ids look like in its samples.
 * @module
 */

/** The middle 10 hex characters of every mock id: "mock" and a zero byte in ASCII. */
const MOCK_MARK = '6d6f636b00';

/**
 * Returns a generator of ObjectId-like ids: 8 hex characters of the clock's Unix seconds, the
 * constant `6d6f636b00`, then a 6-hex-character counter starting at 1. Ids are unique per generator
 * (until 16 777 215 ids) and deterministic for a fixed clock.
 * @param now the clock (the mock's `now` option).
 */
export function createObjectIdGenerator(now: () => Date): () => string {
  let counter = 0;
  return () => {
    counter += 1;
    const seconds = Math.max(0, Math.floor(now().getTime() / 1000)) % 2 ** 32;
    return `${seconds.toString(16).padStart(8, '0')}${MOCK_MARK}${(counter % 2 ** 24).toString(16).padStart(6, '0')}`;
  };
}

/** Returns a generator of readable sequence ids: `<prefix>000001`, `<prefix>000002`, … */
export function createSequenceIdGenerator(prefix: string): () => string {
  let counter = 0;
  return () => {
    counter += 1;
    return `${prefix}${String(counter).padStart(6, '0')}`;
  };
}

/**
 * A new top-up payment token: 128 random bits from Web Crypto, base64url (22 characters), so that a
 * link cannot be guessed from another one (docs/sandbox.md, "Exposure").
 */
export function randomPaymentToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
