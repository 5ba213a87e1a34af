/** Bounds shared by the options of the client, the webhook handler and per-call options. */

/** Largest delay a JavaScript timer accepts, in ms (2^31 − 1). */
export const MAX_TIMER_MS = 2_147_483_647;
