/**
 * `Authorization: apikey <key>` and `x-seller-id`, else 401 repeating nothing sent (README "The client").
 * @module
 */
import type { ServiceConfig } from './options.js';
import { errorResponse } from './responses.js';

/** The message of every 401. */
export const UNAUTHORIZED_MESSAGE = 'Invalid API key or seller id';

/** `apikey` (any letter case, as an HTTP auth scheme), one space, the key. */
const APIKEY_SCHEME = /^apikey (.+)$/i;

/** The caller's seller id when both headers match the mock's credentials, else `undefined`. */
export function authenticatedSeller(config: ServiceConfig, headers: Headers): string | undefined {
  const key = APIKEY_SCHEME.exec(headers.get('authorization') ?? '')?.[1];
  const sellerId = headers.get('x-seller-id');
  return key === config.apiKey && sellerId === config.sellerId ? sellerId : undefined;
}

/** The 401 answer. */
export function unauthorized(): Response {
  return errorResponse(401, UNAUTHORIZED_MESSAGE, 'UNAUTHORIZED');
}
