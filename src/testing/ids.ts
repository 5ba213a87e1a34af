/** Identifiers the mock hands out (task ids like MongoDB ObjectIds, as in the service's samples). @module */

/** The middle 10 hex characters of every mock id: "mock" and a zero byte in ASCII. */
const MOCK_MARK = '6d6f636b00';

/** ObjectId-like ids: clock seconds (8 hex), `6d6f636b00`, a counter from 1 (6 hex). */
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
 * A top-up token: 128 random bits, base64url, so one link cannot be guessed from another
 * (delivery-task-tools/docs/sandbox.md "Exposure").
 */
export function randomPaymentToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
