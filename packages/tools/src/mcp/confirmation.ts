/** Confirmation of a booking, by the person when the client can ask (elicitation), otherwise in two steps. */

/** How long a confirmation token is valid, ms (5 minutes). */
export const CONFIRMATION_TTL_MS = 5 * 60_000;

/** Tokens a session keeps; past it the oldest is forgotten. */
export const MAX_CONFIRMATIONS = 100;

/** What checking a token found. */
export type TokenCheck = 'ok' | 'unknown' | 'expired' | 'used' | 'mismatch';

interface Issued {
  readonly arguments: string;
  readonly expiresAt: number;
  used: boolean;
}

/** JSON with object keys sorted at every level: the same arguments always give the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The confirmation tokens of one session. */
export class ConfirmationBook {
  readonly #issued = new Map<string, Issued>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** A new token for `args` (canonical JSON, without the token itself). */
  issue(args: string): { token: string; expiresAt: number } {
    const token = `cfm_${globalThis.crypto.randomUUID()}`;
    const expiresAt = this.#now() + CONFIRMATION_TTL_MS;
    this.#issued.set(token, { arguments: args, expiresAt, used: false });
    for (const [old, issued] of this.#issued) {
      if (this.#issued.size <= MAX_CONFIRMATIONS) break;
      if (old !== token || issued.used) this.#issued.delete(old);
    }
    return { token, expiresAt };
  }

  /** Checks `token` against `args`; when it is `'ok'` or `'mismatch'`, the token is used up. */
  take(token: string, args: string): TokenCheck {
    const issued = this.#issued.get(token);
    if (issued === undefined) return 'unknown';
    if (issued.used) return 'used';
    if (this.#now() > issued.expiresAt) return 'expired';
    // A token presented with other arguments is spent too: what was confirmed is not what is asked.
    issued.used = true;
    return issued.arguments === args ? 'ok' : 'mismatch';
  }
}
