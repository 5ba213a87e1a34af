/** The mock's JSON answers; errors are `{ message, code }`, never holding the key or seller id. @module */
import { HttpResponse } from 'msw';
import { REASON_PHRASES } from '../core/http-status.js';

/** Error codes the mock uses, by HTTP status; a status not listed gets `HTTP_<status>`. */
const CODE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'INSUFFICIENT_BALANCE',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  409: 'CONFLICT',
  422: 'UNPROCESSABLE_ENTITY',
  429: 'RATE_LIMITED',
  500: 'INTERNAL_SERVER_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

/** The error code the mock uses for an HTTP status (`404` → `NOT_FOUND`). */
export function codeOfStatus(status: number): string {
  return CODE_BY_STATUS[status] ?? `HTTP_${status}`;
}

/** A reason phrase for an HTTP status (`503` → `Service Unavailable`), or `HTTP <status>`. */
export function reasonOfStatus(status: number): string {
  return REASON_PHRASES[status] ?? `HTTP ${status}`;
}

const encoder = new TextEncoder();

/** A JSON answer with its `content-length`: msw 3.0 keeps about 45 KB per answer without one, for good. */
export function jsonResponse(body: unknown, status = 200, headers?: Record<string, string>): Response {
  const bytes = encoder.encode(JSON.stringify(body));
  return new Response(bytes, {
    status,
    headers: { 'content-type': 'application/json', 'content-length': String(bytes.byteLength), ...headers },
  });
}

/** An error answer `{ message, code }`; `code` defaults to {@link codeOfStatus}. */
export function errorResponse(status: number, message: string, code = codeOfStatus(status)): Response {
  return jsonResponse({ message, code }, status);
}

/** A dropped connection: `fetch` rejects with a network error. */
export function droppedConnection(): Response {
  return HttpResponse.error();
}
