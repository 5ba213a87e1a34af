/** The sandbox's control endpoints under `/_sandbox/` (README "CLI"). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { kwd } from 'delivery-task-sdk';
import {
  answerBadTarget,
  answerBodyTooLarge,
  BodyTooLargeError,
  MAX_JSON_DEPTH,
  nestsDeeperThan,
  OPERATION_NAMES as OPERATIONS,
  readBody,
  requestTarget,
} from 'delivery-task-sdk/internal';
import { TASK_STATUSES, WEBHOOK_ONLY_EVENTS } from 'delivery-task-sdk/schemas';
import type { MockDeliveryService, MockFaultRule, MockObservers } from 'delivery-task-sdk/testing';
import {
  DRIFT_MUTATIONS,
  MOCK_FAULT_KINDS,
  type MockDriftMutation,
  observersOf,
  TopUpLinkError,
} from 'delivery-task-sdk/testing';
import * as z from 'zod/mini';
import { type Parsed, parseValue } from '../json-body.js';
import {
  ADVANCE_BODY,
  CONTROL_ENDPOINTS,
  FAULT_BODY,
  TOP_UP_COMPLETION_BODY,
  WEBHOOK_URL_BODY,
} from './endpoints.js';
import { DEFAULT_LOG_PAGE, MAX_LOG_PAGE, pageQuery, requestsPageJson } from './logs.js';
import { viewRequest } from './views.js';

/** The path every control endpoint starts with. */
export const CONTROL_PATH = '/_sandbox';

/** Default page size of `GET /_sandbox/requests`. */
export const DEFAULT_REQUEST_PAGE = DEFAULT_LOG_PAGE;

/** Largest page of `GET /_sandbox/requests`, requests. */
export const MAX_REQUEST_PAGE = MAX_LOG_PAGE;

/** Largest control request body, bytes (64 KiB). */
export const MAX_CONTROL_BODY_BYTES = 64 * 1024;

/** True for a path served by the control endpoints (`/_sandbox` and below). */
export function isControlPath(pathname: string): boolean {
  return pathname === CONTROL_PATH || pathname.startsWith(`${CONTROL_PATH}/`);
}

/** A control answer: status and JSON body, or the body already as JSON text (plus `allow` for a 405). */
interface ControlAnswer {
  readonly status: number;
  readonly body: unknown;
  /** The body as JSON text, written as it is (a log page whose bodies are held as text). */
  readonly json?: string;
  readonly allow?: string;
}

const answer = (status: number, body: unknown): ControlAnswer => ({ status, body });
const failure = (status: number, message: string, code: string): ControlAnswer =>
  answer(status, { message, code });
const badRequest = (message: string): ControlAnswer => failure(400, message, 'BAD_REQUEST');

const ENDPOINTS = CONTROL_ENDPOINTS.map((endpoint) => `${endpoint.method} ${endpoint.path}`);

/** What the dashboard's read endpoints (`sandbox-views.ts`) need beyond the mock. */
export interface ControlViews {
  readonly observers: MockObservers;
  readonly webhookUrl: string | undefined;
}

/** Where `POST /_sandbox/tasks/{id}/advance` can move a task: a task status or a webhook-only event. */
const ADVANCE_TARGETS = [...TASK_STATUSES, ...WEBHOOK_ONLY_EVENTS] as const;

const AdvanceBody = z.strictObject({
  status: z.optional(z.enum(ADVANCE_TARGETS, { error: `must be one of ${ADVANCE_TARGETS.join(', ')}` })),
});

const TopUpCompletion = z.strictObject({
  paymentUrl: z
    .string({ error: 'required: the paymentUrl of a top-up link, as POST tasks/wallet-topup answered it' })
    .check(z.minLength(1, 'must not be empty')),
});

const WebhookUrlBody = z.strictObject({
  url: z.union([z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }), z.null()], {
    error: 'required: an absolute http(s) URL, or null for no webhooks',
  }),
});

const TIMES_RULE = 'must be a positive integer or "Infinity"';
const MS_RULE = 'must be a number of ms ≥ 0 or "Infinity"';

/** `Infinity` in JSON: the string `"Infinity"`. */
const infinity = z.pipe(
  z.literal('Infinity'),
  z.transform(() => Number.POSITIVE_INFINITY),
);
const Operation = z.enum(OPERATIONS as readonly [string, ...string[]], {
  error: `must be one of ${OPERATIONS.join(', ')}`,
});
const ruleFields = {
  operation: z.optional(
    z.union([Operation, z.array(Operation).check(z.minLength(1))], {
      error: `must be one of ${OPERATIONS.join(', ')}, or a non-empty array of them`,
    }),
  ),
  times: z.optional(
    z.union([z.int(TIMES_RULE).check(z.positive(TIMES_RULE)), infinity], { error: TIMES_RULE }),
  ),
};

/**
 * The JSON form of a {@link MockFaultRule}: one object schema per fault kind (`GET /_sandbox/faults` lists
 * them).
 */
export const FaultRuleBody = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({
      kind: z.literal('status'),
      status: z.int().check(z.gte(200), z.lte(599)),
      body: z.optional(z.json()),
      headers: z.optional(z.record(z.string(), z.string())),
      ...ruleFields,
    }),
    z.strictObject({ kind: z.literal('network-error'), ...ruleFields }),
    z.strictObject({ kind: z.literal('commit-then-drop'), ...ruleFields }),
    z.strictObject({
      kind: z.literal('delay'),
      ms: z.union([z.number().check(z.gte(0, MS_RULE)), infinity], { error: MS_RULE }),
      ...ruleFields,
    }),
    z.strictObject({ kind: z.literal('stall-body'), ...ruleFields }),
    z.strictObject({ kind: z.literal('invalid-json'), ...ruleFields }),
    z.strictObject({ kind: z.literal('repeat-page'), ...ruleFields }),
    z.strictObject({
      kind: z.literal('sort'),
      sortBy: z.optional(z.string()),
      sortOrder: z.optional(z.union([z.literal(1), z.literal(-1)])),
      ...ruleFields,
    }),
    z.strictObject({
      kind: z.literal('drift'),
      mutations: z.optional(
        z.array(z.enum(DRIFT_MUTATIONS as readonly [MockDriftMutation, ...MockDriftMutation[]])),
      ),
      ...ruleFields,
    }),
  ],
  { error: `must be one of ${MOCK_FAULT_KINDS.join(', ')}` },
);

/**
 * Parses a control body: JSON (any content type), `{}` when empty (so that a missing field is named),
 * checked against `schema`; a 400's message ends with the body `expected`.
 */
function parseBody<Schema extends z.ZodMiniType>(
  text: string,
  schema: Schema,
  expected: string,
): Parsed<z.output<Schema>> {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    return { ok: false, message: `body: nested deeper than ${MAX_JSON_DEPTH} levels` };
  }
  const parsed = parseJsonBody(text, schema);
  return parsed.ok ? parsed : { ok: false, message: `${parsed.message} (expected body: ${expected})` };
}

function parseJsonBody<Schema extends z.ZodMiniType>(text: string, schema: Schema): Parsed<z.output<Schema>> {
  let json: unknown = {};
  if (text.trim() !== '') {
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false, message: 'body: Invalid JSON' };
    }
  }
  return parseValue(json, schema, 'body');
}

/** `Infinity` written back as `"Infinity"` so that the echoed rule is JSON. */
function jsonOfRule(rule: MockFaultRule): unknown {
  return JSON.parse(
    JSON.stringify(rule, (_key, value: unknown) => (value === Number.POSITIVE_INFINITY ? 'Infinity' : value)),
  );
}

async function advance(mock: MockDeliveryService, encodedId: string, text: string): Promise<ControlAnswer> {
  let taskId: string;
  try {
    taskId = decodeURIComponent(encodedId);
  } catch {
    return badRequest('id: malformed percent-encoding');
  }
  const parsed = parseBody(text, AdvanceBody, ADVANCE_BODY);
  if (!parsed.ok) return badRequest(parsed.message);
  if (mock.task(taskId) === undefined) return failure(404, 'Task not found', 'NOT_FOUND');
  try {
    return answer(200, await mock.advance(taskId, parsed.value.status));
  } catch (error) {
    return failure(409, error instanceof Error ? error.message : String(error), 'INVALID_TRANSITION');
  }
}

function injectFault(mock: MockDeliveryService, text: string): ControlAnswer {
  const parsed = parseBody(text, FaultRuleBody, FAULT_BODY);
  if (!parsed.ok) return badRequest(parsed.message);
  const rule = parsed.value as MockFaultRule;
  try {
    mock.inject(rule);
  } catch (error) {
    return badRequest(`body: ${error instanceof Error ? error.message : String(error)}`);
  }
  return answer(201, { fault: jsonOfRule(rule) });
}

function completeTopUp(mock: MockDeliveryService, text: string): ControlAnswer {
  const parsed = parseBody(text, TopUpCompletion, TOP_UP_COMPLETION_BODY);
  if (!parsed.ok) return badRequest(parsed.message);
  const { paymentUrl } = parsed.value;
  const before = mock.wallet.balanceFils;
  try {
    const walletAmount = mock.completeTopUp(paymentUrl);
    const amount = kwd.toNumber(kwd.fromFils(mock.wallet.balanceFils - before));
    return answer(200, { paymentUrl, amount, walletAmount });
  } catch (error) {
    if (error instanceof RangeError) return badRequest(`paymentUrl: ${error.message}`);
    if (!(error instanceof TopUpLinkError)) throw error;
    const [status, code] = {
      unknown: [404, 'UNKNOWN_PAYMENT_LINK'],
      used: [409, 'PAYMENT_LINK_USED'],
      expired: [410, 'PAYMENT_LINK_EXPIRED'],
    }[error.problem] as [number, string];
    return failure(status, error.message, code);
  }
}

/** `GET /_sandbox/requests?limit&before=<seq>`: the newest `limit` below `before`, oldest first, redacted. */
function requestsPage(
  mock: MockDeliveryService,
  views: ControlViews | undefined,
  query: URLSearchParams,
): ControlAnswer {
  const page = pageQuery(query, 'request');
  if ('error' in page) return badRequest(page.error);
  const observers = views?.observers ?? observersOf(mock);
  if (observers === undefined)
    return failure(
      500,
      'The sandbox needs a mock made by createMockDeliveryService',
      'INTERNAL_SERVER_ERROR',
    );
  return { status: 200, body: undefined, json: requestsPageJson(mock, observers, page.limit, page.before) };
}

async function control(
  mock: MockDeliveryService,
  method: string,
  segments: readonly string[],
  text: string,
  query: URLSearchParams,
  views: ControlViews | undefined,
): Promise<ControlAnswer> {
  const route = segments.join('/');
  const viewed = views
    ? viewRequest({ mock, ...views, faultRule: FaultRuleBody }, method, segments, query)
    : undefined;
  if (viewed !== undefined) return viewed;
  const allowed = (allow: string, run: () => ControlAnswer | Promise<ControlAnswer>) =>
    method === allow
      ? run()
      : {
          ...failure(
            405,
            `Method ${method} is not allowed on ${CONTROL_PATH}/${route}`,
            'METHOD_NOT_ALLOWED',
          ),
          allow,
        };
  const [first, id, last, ...rest] = segments;
  if (first === 'tasks' && id !== undefined && id !== '' && last === 'advance' && rest.length === 0) {
    return allowed('POST', () => advance(mock, id, text));
  }
  switch (route) {
    case '':
      return allowed('GET', () => answer(200, { endpoints: CONTROL_ENDPOINTS }));
    case 'webhook-url':
      return allowed('POST', () => {
        const parsed = parseBody(text, WebhookUrlBody, WEBHOOK_URL_BODY);
        if (!parsed.ok) return badRequest(parsed.message);
        try {
          mock.setWebhookUrl(parsed.value.url ?? undefined);
        } catch (error) {
          return badRequest(`url: ${error instanceof Error ? error.message : String(error)}`);
        }
        return answer(200, { webhookUrl: mock.webhookUrl ?? null });
      });
    case 'faults':
      return allowed('POST', () => injectFault(mock, text));
    case 'reset':
      return allowed('POST', () => {
        mock.reset();
        return answer(200, { tasks: mock.tasks.length, walletAmount: mock.wallet.balance });
      });
    case 'requests':
      return allowed('GET', () => requestsPage(mock, views, query));
    case 'top-ups/complete':
      return allowed('POST', () => completeTopUp(mock, text));
    default:
      return failure(
        404,
        `No sandbox control endpoint ${method} ${CONTROL_PATH}/${route} (there are: ${ENDPOINTS.join(', ')}; GET ${CONTROL_PATH} describes each, with its body)`,
        'NOT_FOUND',
      );
  }
}

function send(response: ServerResponse, result: ControlAnswer): void {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  if (result.allow !== undefined) headers.allow = result.allow;
  response.writeHead(result.status, headers).end(result.json ?? JSON.stringify(result.body));
}

/**
 * Answers one control request (a path for which {@link isControlPath} is true). Reads at most
 * {@link MAX_CONTROL_BODY_BYTES} of the body (413 beyond); an unexpected failure is a 500 naming it.
 */
export async function answerControlRequest(
  mock: MockDeliveryService,
  request: IncomingMessage,
  response: ServerResponse,
  views?: ControlViews,
): Promise<void> {
  const url = requestTarget(request.url, 'http://sandbox');
  if (url === undefined) {
    answerBadTarget(response);
    return;
  }
  const { pathname, searchParams } = url;
  const segments = pathname.slice(CONTROL_PATH.length + 1).split('/');
  if (segments.at(-1) === '') segments.pop();
  try {
    const bytes = await readBody(request, MAX_CONTROL_BODY_BYTES);
    const text = bytes === undefined ? '' : new TextDecoder().decode(bytes);
    send(response, await control(mock, request.method ?? 'GET', segments, text, searchParams, views));
  } catch (error) {
    if (response.headersSent) response.destroy();
    else if (error instanceof BodyTooLargeError) answerBodyTooLarge(response, error);
    else
      send(
        response,
        failure(
          500,
          `The sandbox failed: ${error instanceof Error ? error.message : String(error)}`,
          'INTERNAL_SERVER_ERROR',
        ),
      );
  }
}
