/**
 * `GET /_sandbox/requests` and `GET /_sandbox/webhooks` (docs/sandbox.md, "Control endpoints", "Bounds"):
 * one page each, written as JSON text without parsing the bodies the mock holds as text. Credentials are
 * removed from every page by what they are (credential headers and fields), and the mock's credentials and
 * those requests sent (the last 16) wherever they appear, so a key sent once shows on no page.
 */
import { Redactor } from 'delivery-task-sdk';
import type { MockDeliveryService, MockObservers, RequestLogEntry, StoredBody } from 'delivery-task-sdk/testing';

/** Default page size of `GET /_sandbox/requests` and `GET /_sandbox/webhooks`. */
export const DEFAULT_LOG_PAGE = 100;

/** Largest page of `GET /_sandbox/requests` and `GET /_sandbox/webhooks`. */
export const MAX_LOG_PAGE = 200;

/** A page's parameters, or why they are wrong (the message names the parameter). */
export type PageQuery = { readonly limit: number; readonly before: number | undefined } | { readonly error: string };

/** Reads `limit` (1…{@link MAX_LOG_PAGE}, default {@link DEFAULT_LOG_PAGE}) and `before` of a page request. */
export function pageQuery(query: URLSearchParams, what: string): PageQuery {
  const limitText = query.get('limit');
  const beforeText = query.get('before');
  const limit = limitText === null ? DEFAULT_LOG_PAGE : /^\d{1,4}$/.test(limitText) ? Number(limitText) : 0;
  if (!(limit >= 1 && limit <= MAX_LOG_PAGE)) return { error: `limit: must be an integer from 1 to ${MAX_LOG_PAGE}` };
  const before = beforeText === null ? undefined : /^\d{1,15}$/.test(beforeText) ? Number(beforeText) : Number.NaN;
  if (Number.isNaN(before)) return { error: `before: must be a ${what} number (the "before" of a page)` };
  return { limit, before };
}

/** A field or header name that may hold a credential, in any spelling, or a JSON escape that could hide one. */
const MAYBE_CREDENTIAL = /seller[-_]?id|api[-_]?key|authori[sz]ation|cookie|\\u/i;

/** The redactor of the last secrets set asked for, per mock (a page read builds none when nothing changed). */
const redactors = new WeakMap<object, { key: string; redactor: Redactor }>();

/** A redactor of the mock's credentials and those requests sent. */
function redactorOf(mock: MockDeliveryService, observers: MockObservers): Redactor {
  const secrets = [mock.apiKey, mock.sellerId, ...observers.requestCredentials()];
  const key = JSON.stringify(secrets);
  const cached = redactors.get(mock);
  if (cached?.key === key) return cached.redactor;
  const redactor = new Redactor(secrets);
  redactors.set(mock, { key, redactor });
  return redactor;
}

/**
 * A held body as redacted JSON text. JSON text is written as it is held unless it may hold a credential
 * (a credential name, an escape, or a secret's text): then it is parsed, redacted and written again.
 */
function bodyJson(body: StoredBody, redactor: Redactor): string {
  if ('json' in body) {
    if (!MAYBE_CREDENTIAL.test(body.json) && redactor.text(body.json) === body.json) return body.json;
    return JSON.stringify(redactor.value(JSON.parse(body.json)));
  }
  if ('text' in body) return JSON.stringify(redactor.text(body.text));
  return JSON.stringify(redactor.value(body.summary));
}

/** An object's JSON text with `"name":<json>` added at its end (`json` already JSON text). */
function withField(objectJson: string, name: string, json: string | undefined): string {
  if (json === undefined) return objectJson;
  const field = `${JSON.stringify(name)}:${json}`;
  return objectJson === '{}' ? `{${field}}` : `${objectJson.slice(0, -1)},${field}}`;
}

/** One request of a page as redacted JSON text: headers, query, URL and body without credentials. */
function requestJson(entry: RequestLogEntry, redactor: Redactor): string {
  const fields = JSON.stringify(redactor.value({ ...entry.request, seq: entry.seq }));
  return withField(fields, 'body', entry.body === undefined ? undefined : bodyJson(entry.body, redactor));
}

/**
 * `GET /_sandbox/requests?limit&before`: `{ requests, total, before? }` as JSON text, the newest `limit`
 * requests numbered below `before`, oldest first, every credential `[redacted]`.
 */
export function requestsPageJson(
  mock: MockDeliveryService,
  observers: MockObservers,
  limit: number,
  before: number | undefined,
): string {
  const page = observers.requestLogPage(limit, before);
  const redactor = redactorOf(mock, observers);
  const requests = page.entries.map((entry) => requestJson(entry, redactor)).join(',');
  const tail = page.before === undefined ? '' : `,"before":${page.before}`;
  return `{"requests":[${requests}],"total":${page.total}${tail}}`;
}

/**
 * `GET /_sandbox/webhooks?limit&before`: `{ webhookUrl, deliveries, total, before? }` as JSON text, the
 * newest `limit` deliveries numbered below `before`, oldest first; each body is the task the sandbox sent.
 */
export function webhooksPageJson(
  mock: MockDeliveryService,
  observers: MockObservers,
  webhookUrl: string | undefined,
  limit: number,
  before: number | undefined,
): string {
  const page = observers.webhookPage(limit, before);
  const redactor = redactorOf(mock, observers);
  const deliveries = page.deliveries
    .map(({ bodyJson: body, ...delivery }) =>
      withField(JSON.stringify(redactor.value(delivery)), 'body', bodyJson({ json: body }, redactor)),
    )
    .join(',');
  const tail = page.before === undefined ? '' : `,"before":${page.before}`;
  return `{"webhookUrl":${JSON.stringify(webhookUrl ?? null)},"deliveries":[${deliveries}],"total":${page.total}${tail}}`;
}
