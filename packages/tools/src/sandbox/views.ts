/**
 * The control endpoints that read the sandbox's state for the dashboard (and for curl), beside the ones of
 * `control.ts` (docs/sandbox.md, "Control endpoints").
 */

import { OPERATION_NAMES as OPERATIONS } from 'delivery-task-sdk/internal';
import type { MockDeliveryService, MockObservers } from 'delivery-task-sdk/testing';
import * as z from 'zod/mini';
import { activeFaults } from './events.js';
import { pageQuery, webhooksPageJson } from './logs.js';

/** Default of `limit` in `GET /_sandbox/tasks`. */
export const DEFAULT_TASK_VIEW_LIMIT = 500;

/** Largest `limit` of `GET /_sandbox/tasks`. */
export const MAX_TASK_VIEW_LIMIT = 1000;

/**
 * Most "send again" POSTs in flight at once per sandbox; one more is answered 429 (each waits at most 5 s).
 */
export const MAX_CONCURRENT_RESENDS = 8;

/** Resends in flight, per sandbox. */
const resendsInFlight = new WeakMap<MockObservers, number>();

/** A control answer: status and JSON body (plus `allow` for a 405). */
export interface ViewAnswer {
  readonly status: number;
  readonly body: unknown;
  /** The body as JSON text, written as it is (a log page whose bodies are held as text). */
  readonly json?: string;
  readonly allow?: string;
}

/** What a view needs. */
export interface ViewContext {
  readonly mock: MockDeliveryService;
  readonly observers: MockObservers;
  /** The webhook receiver's URL, if the sandbox has one. */
  readonly webhookUrl: string | undefined;
  /** The schema of `POST /_sandbox/faults`: one object schema per fault kind. */
  readonly faultRule: z.ZodMiniDiscriminatedUnion<readonly z.ZodMiniObject[]>;
}

/** The endpoints of this module, for the 404 that lists every control endpoint. */
export const VIEW_ENDPOINTS = [
  'GET /_sandbox/tasks',
  'GET /_sandbox/tasks/{id}',
  'GET /_sandbox/webhooks',
  'POST /_sandbox/webhooks/{seq}/resend',
  'GET /_sandbox/wallet',
  'GET /_sandbox/faults',
  'DELETE /_sandbox/faults',
  'DELETE /_sandbox/faults/{index}',
  'GET /_sandbox/events',
];

const answer = (status: number, body: unknown): ViewAnswer => ({ status, body });
const failure = (status: number, message: string, code: string): ViewAnswer =>
  answer(status, { message, code });

/** Every fault kind the sandbox accepts, with the JSON Schema (input form) of its rule. */
export function faultKinds(schema: ViewContext['faultRule']): { kind: string; schema: unknown }[] {
  return schema._zod.def.options.map((option) => {
    const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(option, {
      io: 'input',
      unrepresentable: 'any',
    });
    const kind = (option.shape as { kind?: z.ZodMiniLiteral }).kind?._zod.def.values[0];
    return { kind: String(kind), schema: jsonSchema };
  });
}

function tasksView(context: ViewContext, query: URLSearchParams): ViewAnswer {
  const text = query.get('limit');
  const limit = text === null ? DEFAULT_TASK_VIEW_LIMIT : /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_TASK_VIEW_LIMIT)) {
    return failure(400, `limit: must be an integer from 1 to ${MAX_TASK_VIEW_LIMIT}`, 'BAD_REQUEST');
  }
  const { records, total } = context.observers.newestRecords(limit);
  return answer(200, {
    tasks: records.map((record) => ({ task: record.task, feeFils: record.feeFils })),
    total,
  });
}

function taskView(context: ViewContext, encodedId: string): ViewAnswer {
  let taskId: string;
  try {
    taskId = decodeURIComponent(encodedId);
  } catch {
    return failure(400, 'id: malformed percent-encoding', 'BAD_REQUEST');
  }
  const record = context.observers.record(taskId);
  if (!record) return failure(404, 'Task not found', 'NOT_FOUND');
  return answer(200, { task: record.task, feeFils: record.feeFils, events: record.events });
}

async function resend(context: ViewContext, seqText: string): Promise<ViewAnswer> {
  const seq = /^\d{1,15}$/.test(seqText) ? Number(seqText) : Number.NaN;
  const { observers } = context;
  const inFlight = resendsInFlight.get(observers) ?? 0;
  if (inFlight >= MAX_CONCURRENT_RESENDS) {
    return failure(
      429,
      `${MAX_CONCURRENT_RESENDS} webhook deliveries are already being sent again`,
      'TOO_MANY_RESENDS',
    );
  }
  resendsInFlight.set(observers, inFlight + 1);
  let delivery: Awaited<ReturnType<MockObservers['resendWebhook']>>;
  try {
    delivery = Number.isSafeInteger(seq) ? await observers.resendWebhook(seq) : undefined;
  } finally {
    resendsInFlight.set(observers, (resendsInFlight.get(observers) ?? 1) - 1);
  }
  if (!delivery) return failure(404, `No webhook delivery ${JSON.stringify(seqText)} is kept`, 'NOT_FOUND');
  return answer(200, delivery);
}

function faultsView(context: ViewContext): ViewAnswer {
  return answer(200, {
    kinds: faultKinds(context.faultRule),
    operations: OPERATIONS,
    active: activeFaults(context.observers),
  });
}

/**
 * Answers a request to one of this module's endpoints, or `undefined` when the route is not one of
 * them (the caller answers 404 then).
 * @param segments the path after `/_sandbox/`, split on `/`.
 */
export function viewRequest(
  context: ViewContext,
  method: string,
  segments: readonly string[],
  query: URLSearchParams,
): ViewAnswer | Promise<ViewAnswer> | undefined {
  const only = (allow: string, run: () => ViewAnswer | Promise<ViewAnswer>) =>
    method === allow
      ? run()
      : {
          ...failure(
            405,
            `Method ${method} is not allowed on /_sandbox/${segments.join('/')}`,
            'METHOD_NOT_ALLOWED',
          ),
          allow,
        };
  const [first, second, third, ...rest] = segments;
  if (rest.length > 0) return undefined;
  if (first === 'tasks' && second === undefined) return only('GET', () => tasksView(context, query));
  if (first === 'tasks' && second !== undefined && second !== '' && third === undefined) {
    return only('GET', () => taskView(context, second));
  }
  if (first === 'webhooks' && second === undefined) {
    return only('GET', () => {
      const page = pageQuery(query, 'delivery');
      if ('error' in page) return failure(400, page.error, 'BAD_REQUEST');
      const { mock, observers, webhookUrl } = context;
      return {
        status: 200,
        body: undefined,
        json: webhooksPageJson(mock, observers, webhookUrl, page.limit, page.before),
      };
    });
  }
  if (first === 'webhooks' && second !== undefined && third === 'resend') {
    return only('POST', () => resend(context, second));
  }
  if (first === 'wallet' && second === undefined) {
    return only('GET', () =>
      answer(200, { wallet: context.mock.wallet, topUps: context.observers.topUps() }),
    );
  }
  if (first === 'faults' && second === undefined) {
    if (method === 'POST') return undefined;
    if (method === 'GET') return faultsView(context);
    if (method === 'DELETE') {
      context.mock.clearFaults();
      return answer(200, { active: [] });
    }
    return {
      ...failure(405, `Method ${method} is not allowed on /_sandbox/faults`, 'METHOD_NOT_ALLOWED'),
      allow: 'GET, POST, DELETE',
    };
  }
  if (first === 'faults' && second !== undefined && third === undefined) {
    return only('DELETE', () => {
      const index = /^\d{1,6}$/.test(second) ? Number(second) : -1;
      if (!context.observers.removeFaultRule(index)) {
        return failure(404, `No active fault rule ${JSON.stringify(second)}`, 'NOT_FOUND');
      }
      return answer(200, { active: activeFaults(context.observers) });
    });
  }
  return undefined;
}
