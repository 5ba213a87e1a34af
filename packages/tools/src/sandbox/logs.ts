/**
 * `GET /_sandbox/requests` and `GET /_sandbox/webhooks` (docs/sandbox.md, "Control endpoints", "Bounds"):
 * one page each, written as JSON text without parsing the bodies the mock holds as text. Credentials are
 * removed from every page by what they are (credential headers and fields), and the mock's credentials and
 * those requests sent (the last 16) wherever they appear, so a key sent once shows on no page.
 */
import { REDACTED, Redactor } from 'delivery-task-sdk/internal';
import type {
  MockDeliveryService,
  MockObservers,
  RequestLogEntry,
  StoredBody,
} from 'delivery-task-sdk/testing';

/** Default page size of `GET /_sandbox/requests` and `GET /_sandbox/webhooks`. */
export const DEFAULT_LOG_PAGE = 100;

/** Largest page of `GET /_sandbox/requests` and `GET /_sandbox/webhooks`. */
export const MAX_LOG_PAGE = 200;

/** A page's parameters, or why they are wrong (the message names the parameter). */
export type PageQuery =
  | { readonly limit: number; readonly before: number | undefined }
  | { readonly error: string };

/**
 * Reads `limit` (1…{@link MAX_LOG_PAGE}, default {@link DEFAULT_LOG_PAGE}) and `before` of a page request.
 */
export function pageQuery(query: URLSearchParams, what: string): PageQuery {
  const limitText = query.get('limit');
  const beforeText = query.get('before');
  const limit = limitText === null ? DEFAULT_LOG_PAGE : /^\d{1,4}$/.test(limitText) ? Number(limitText) : 0;
  if (!(limit >= 1 && limit <= MAX_LOG_PAGE))
    return { error: `limit: must be an integer from 1 to ${MAX_LOG_PAGE}` };
  const before =
    beforeText === null ? undefined : /^\d{1,15}$/.test(beforeText) ? Number(beforeText) : Number.NaN;
  if (Number.isNaN(before)) return { error: `before: must be a ${what} number (the "before" of a page)` };
  return { limit, before };
}

/**
 * A field or header name that may hold a credential, in any spelling, or a JSON escape that could hide one.
 */
const MAYBE_CREDENTIAL = /seller[-_]?id|api[-_]?key|authori[sz]ation|cookie|\\u/i;

/** Shortest secret the redactor searches text for (its `MIN_SUBSTRING_SECRET_CHARS`). */
const MIN_SECRET_CHARS = 8;

/**
 * The base64 forms of a secret the redactor knows (of it and of `apikey <it>`, whole or inside longer
 * base64).
 */
function base64Forms(secret: string): string[] {
  const encodings = [String.fromCharCode(...new TextEncoder().encode(secret))];
  if ([...secret].every((character) => (character.codePointAt(0) ?? 0) <= 0xff)) encodings.push(secret);
  const forms: string[] = [];
  for (const binary of encodings) {
    forms.push(btoa(binary).replace(/=+$/, ''), btoa(`apikey ${binary}`).replace(/=+$/, ''));
    for (let offset = 0; offset < 3; offset++) {
      const shifted = btoa('\0'.repeat(offset) + binary);
      const core = shifted.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + binary.length)) / 6));
      if (core.length >= 12) forms.push(core);
    }
  }
  return forms.flatMap((form) => [form, form.replace(/\+/g, '-').replace(/\//g, '_')]);
}

/** A redactor and a cheap test of whether a text may hold any form of its secrets. */
interface PageRedactor {
  readonly redactor: Redactor;
  /**
   * True when `text` holds a form of a secret: redacting it changes it (the whole pattern runs only after a
   * cheap search hits).
   */
  mayContain(text: string): boolean;
}

/**
 * The cheap test: every form the redactor knows writes a secret's letters and digits as they are, but
 * `%XX` and `\uXXXX` escapes of them and base64; so a search for each secret's longest run of letters and
 * digits and for its base64 forms, and the whole redaction for text with `%` or `\u`, or a secret without a
 * run of 4 letters or digits.
 */
function pageRedactor(secrets: readonly string[]): PageRedactor {
  const redactor = new Redactor(secrets);
  const searched = secrets.filter((secret) => secret.length >= MIN_SECRET_CHARS);
  const runs = searched.map(
    (secret) => (secret.match(/[A-Za-z0-9]+/g) ?? []).sort((a, b) => b.length - a.length)[0],
  );
  const unanchored = runs.some((run) => run === undefined || run.length < 4);
  const anchors = [
    ...new Set([...runs.filter((run) => run !== undefined), ...searched.flatMap(base64Forms)]),
  ];
  return {
    redactor,
    mayContain: (text) =>
      searched.length > 0 &&
      (unanchored ||
        text.includes('%') ||
        text.includes('\\u') ||
        anchors.some((anchor) => text.includes(anchor))) &&
      redactor.text(text) !== text,
  };
}

/** The redactor of the last secrets asked for, per mock (a page read builds none when nothing changed). */
const redactors = new WeakMap<object, { key: string; page: PageRedactor }>();

/** A redactor of the mock's credentials and those requests sent. */
function redactorOf(mock: MockDeliveryService, observers: MockObservers): PageRedactor {
  const secrets = [mock.apiKey, mock.sellerId, ...observers.requestCredentials()];
  const key = JSON.stringify(secrets);
  const cached = redactors.get(mock);
  if (cached?.key === key) return cached.page;
  const page = pageRedactor(secrets);
  redactors.set(mock, { key, page });
  return page;
}

/** A field that may be a credential's: the redactor decides (`sellerId`, `x-api-key`, …), else kept. */
const CREDENTIAL_KEY = /seller|api|auth|cookie/i;

/**
 * A held body as redacted JSON text. JSON text is written as it is held unless it may hold a credential: a
 * credential field's name (or an escape that could spell one) gets its fields masked as it is parsed again;
 * a secret's text anywhere gets the whole redaction of every string and key.
 */
function bodyJson(body: StoredBody, { redactor, mayContain }: PageRedactor): string {
  if ('json' in body) {
    const { json } = body;
    if (mayContain(json)) return JSON.stringify(redactor.value(JSON.parse(json)));
    if (!MAYBE_CREDENTIAL.test(json)) return json;
    const decided = new Map<string, boolean>();
    const isCredential = (key: string): boolean => {
      let credential = decided.get(key);
      if (credential === undefined) {
        credential =
          CREDENTIAL_KEY.test(key) &&
          (redactor.value({ [key]: 'v' }) as Record<string, unknown>)[key] !== 'v';
        decided.set(key, credential);
      }
      return credential;
    };
    // As the redactor masks a credential field: `[redacted]`, after the scheme of an authorization value.
    const masked = (key: string, value: unknown): unknown => {
      if (!((typeof value === 'string' || typeof value === 'number') && isCredential(key))) return value;
      const scheme = /authorization/i.test(key)
        ? /^([A-Za-z][\w.+-]*) +\S/.exec(String(value))?.[1]
        : undefined;
      return scheme === undefined ? REDACTED : `${scheme} ${REDACTED}`;
    };
    return JSON.stringify(JSON.parse(json, masked));
  }
  if ('text' in body) return JSON.stringify(mayContain(body.text) ? redactor.text(body.text) : body.text);
  return JSON.stringify(redactor.value(body.summary));
}

/** An object's JSON text with `"name":<json>` added at its end (`json` already JSON text). */
function withField(objectJson: string, name: string, json: string | undefined): string {
  if (json === undefined) return objectJson;
  const field = `${JSON.stringify(name)}:${json}`;
  return objectJson === '{}' ? `{${field}}` : `${objectJson.slice(0, -1)},${field}}`;
}

/** One request of a page as redacted JSON text: headers, query, URL and body without credentials. */
function requestJson(entry: RequestLogEntry, page: PageRedactor): string {
  const fields = JSON.stringify(page.redactor.value({ ...entry.request, seq: entry.seq }));
  return withField(fields, 'body', entry.body === undefined ? undefined : bodyJson(entry.body, page));
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
      withField(
        JSON.stringify(redactor.redactor.value(delivery)),
        'body',
        bodyJson({ json: body }, redactor),
      ),
    )
    .join(',');
  const tail = page.before === undefined ? '' : `,"before":${page.before}`;
  return `{"webhookUrl":${JSON.stringify(webhookUrl ?? null)},"deliveries":[${deliveries}],"total":${page.total}${tail}}`;
}
