/**
 * Plain `fetch` calls to a mock, with its credentials, for the tests of the mock itself (the SDK
 * client is tested elsewhere).
 */
import type { MockDeliveryService } from '../../src/testing.js';

/** Options of {@link callService}. */
export interface CallOptions {
  /** Sent as JSON with `content-type: application/json`. */
  json?: unknown;
  /** Sent as is (no content type unless given in `headers`). */
  text?: string;
  /** Query parameters. */
  query?: Record<string, string | number | boolean>;
  /** Headers sent instead of the mock's credentials (pass `{}` for none). */
  headers?: Record<string, string>;
  /** Extra headers added to the credentials. */
  extraHeaders?: Record<string, string>;
  signal?: AbortSignal;
}

/** An answer with its body parsed as JSON (or kept as text when it is not JSON). */
export interface CallResult {
  status: number;
  headers: Headers;
  body: unknown;
}

/** The two credential headers of a mock. */
export function credentials(mock: MockDeliveryService): Record<string, string> {
  return { authorization: `apikey ${mock.apiKey}`, 'x-seller-id': mock.sellerId };
}

/** The full URL of `path` (relative to the mock's base URL, e.g. `tasks/branches`), with `query`. */
export function serviceUrl(base: string, path: string, query: CallOptions['query'] = {}): string {
  const url = new URL(`${base}/${path}`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, String(value));
  return url.href;
}

/** Calls the mock at `<base>/<path>` (base defaults to the mock's base URL). */
export async function callService(
  mock: MockDeliveryService,
  method: string,
  path: string,
  options: CallOptions & { base?: string } = {},
): Promise<CallResult> {
  const headers: Record<string, string> = {
    ...(options.headers ?? credentials(mock)),
    ...options.extraHeaders,
  };
  let body: string | undefined = options.text;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  }
  const init: RequestInit = { method, headers };
  if (body !== undefined) init.body = body;
  if (options.signal) init.signal = options.signal;
  const response = await fetch(serviceUrl(options.base ?? mock.baseUrl, path, options.query), init);
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: keep the text.
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** A create body with a delivery point and the given order number (and any other fields). */
export function taskBody(orderNumber: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    orderNumber,
    customerName: `Customer ${orderNumber}`,
    customerNumber: '+96550001234',
    deliveryLocation: {
      latitude: 29.3339,
      longitude: 48.0761,
      fullAddress: ['Block 10, Street 5', 'Salmiya'],
    },
    ...fields,
  };
}

/** Creates a task through the API and returns it (throws on a non-2xx answer). */
export async function createTask(
  mock: MockDeliveryService,
  body: Record<string, unknown>,
): Promise<TaskShape> {
  const result = await callService(mock, 'POST', 'tasks', { json: body });
  if (result.status >= 300) throw new Error(`create failed: ${result.status} ${JSON.stringify(result.body)}`);
  return (result.body as { data: { createTask: TaskShape } }).data.createTask;
}

/** The fields of a task the tests read. */
export interface TaskShape {
  id: string;
  status: string;
  orderNumber?: string;
  customerName?: string;
  createdAt: string;
  updatedAt: string;
  travelDetail: { totalDistance: number; duration: number };
  statusHistory: { id?: string; status: string; timestamp: string }[];
  pickupLocation: { latitude: number; longitude: number };
  [field: string]: unknown;
}
