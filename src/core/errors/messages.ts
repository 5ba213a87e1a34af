/** The words of error messages: never the API key or seller id (README "Errors"). @module */

/** One problem found by a schema: where (`path`, dotted, e.g. `deliveryLocation.latitude`) and what. */
export interface ValidationIssue {
  /** Dotted path of the offending field; empty for the whole value. */
  path: string;
  /** What is wrong, in words. */
  message: string;
  /** zod's issue code (`too_big`, `invalid_type`, `custom`, …). */
  code: string;
}

export function describeIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ');
}

/** Initial data of an `APIError`. */
export interface APIErrorInit {
  status: number;
  headers: Headers;
  /** Parsed JSON body, or the text when it is not JSON, or `undefined` when empty. */
  body: unknown;
  method: string;
  url: string;
  /** The SDK operation, e.g. `tasks.create`; used to recognise a low-balance rejection. */
  operation?: string;
  /** The operation's URL template, e.g. `/tasks/{id}`: a 404 on one without an id is a missing route. */
  urlTemplate?: string | undefined;
  /** Redacts secrets from the server's message (the server may echo a header back). */
  redact?: (text: string) => string;
}

const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-amzn-requestid', 'x-correlation-id', 'cf-ray'];
const MAX_MESSAGE_LENGTH = 500;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function firstString(...values: unknown[]): string | undefined {
  for (const value of values) if (typeof value === 'string' && value.trim() !== '') return value;
  return undefined;
}

/** The server's message: `message`, `error`, `error.message`, `errors[0].message`, else the body's text. */
export function serverMessageOf(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim() === '' ? undefined : body;
  if (!isRecord(body)) return undefined;
  const error = body.error;
  const errors = body.errors;
  const firstOfErrors = Array.isArray(errors) ? errors[0] : undefined;
  return firstString(
    body.message,
    error,
    isRecord(error) ? error.message : undefined,
    isRecord(firstOfErrors) ? firstOfErrors.message : firstOfErrors,
    body.detail,
  );
}

/** The server's error code, from `code`, `error.code` or `errors[0].code`. */
export function serverCodeOf(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const error = body.error;
  const errors = body.errors;
  const firstOfErrors = Array.isArray(errors) ? errors[0] : undefined;
  const code = [
    body.code,
    isRecord(error) ? error.code : undefined,
    isRecord(firstOfErrors) ? firstOfErrors.code : undefined,
  ].find((value) => typeof value === 'string' || typeof value === 'number');
  return code === undefined ? undefined : String(code);
}

export function requestIdOf(headers: Headers): string | undefined {
  return REQUEST_ID_HEADERS.map((header) => headers.get(header)).find((value) => value) ?? undefined;
}

const LOW_BALANCE = /balance|insufficient|wallet|funds/i;

export function mentionsLowBalance(body: unknown): boolean {
  return LOW_BALANCE.test(`${serverCodeOf(body) ?? ''} ${serverMessageOf(body) ?? ''}`);
}

function pathOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}

/** `GET /tasks/abc?page=2`: the path and query; the host is the client's. */
export function describeRequest(request: { method: string; url: string }): string {
  return `${request.method} ${pathOf(request.url)}`;
}

export function truncate(text: string): string {
  const singleLine = text.replace(/\s+/g, ' ').trim();
  return singleLine.length > MAX_MESSAGE_LENGTH ? `${singleLine.slice(0, MAX_MESSAGE_LENGTH)}…` : singleLine;
}

const ROUTE_WORDS = /\broute\b|cannot (?:get|post)\b|no such (?:path|endpoint)|\bendpoint\b|<html|<!doctype/i;

/**
 * Why a 404 is likely a wrong `baseUrl` (no id in the path, or not the service's JSON error), or `undefined`.
 */
export function baseUrlHint(init: APIErrorInit): string | undefined {
  if (init.status !== 404 || init.urlTemplate === undefined) return undefined;
  if (!init.urlTemplate.includes('{')) {
    return 'no such route (this operation has no id): check baseUrl';
  }
  const message = serverMessageOf(init.body);
  const serviceLike = isRecord(init.body) && !ROUTE_WORDS.test(message ?? '');
  return serviceLike ? undefined : "not the service's usual answer: check baseUrl if every task answers 404";
}

const CONNECTION_CAUSES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
};
const CERTIFICATE_CODE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/;

/** `ECONNREFUSED: connection refused`, the bare code, or the innermost cause's message (100 characters). */
export function describeConnectionCause(code: string | undefined, cause: unknown): string {
  if (code === undefined) {
    let message: string | undefined;
    for (let link = cause, depth = 0; link instanceof Error && depth < 4; link = link.cause, depth++) {
      message = link.message;
    }
    return message === undefined || message === '' ? 'no system error code' : message.slice(0, 100);
  }
  const meaning =
    CONNECTION_CAUSES[code] ?? (CERTIFICATE_CODE.test(code) ? 'certificate refused' : undefined);
  return meaning === undefined ? code : `${code}: ${meaning}`;
}

/** The origin of a URL (`https://api.example.com`): never its path, which may hold ids. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the service';
  }
}

export function describeTarget(init: { method: string; urlTemplate?: string | undefined }): string {
  return init.urlTemplate === undefined ? init.method : `${init.method} ${init.urlTemplate}`;
}

export const attemptsText = (attempts: number): string => `${attempts} attempt${attempts === 1 ? '' : 's'}`;
