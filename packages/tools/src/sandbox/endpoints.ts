/**
 * Every control endpoint of the sandbox with the body it takes, in one table: `GET /_sandbox` answers it,
 * `delivery-task sandbox --help` prints it, and a 400 names the body expected (docs/sandbox.md, "Control
 * endpoints").
 */
import { TASK_STATUSES, WEBHOOK_ONLY_EVENTS } from 'delivery-task-sdk/schemas';

/** One control endpoint: how to call it and what it does. */
export interface ControlEndpoint {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Under the sandbox's base URL; `{id}`, `{seq}`, `{index}` are path parameters. */
  readonly path: string;
  /** The JSON body, with its rules; `undefined`: no body. */
  readonly body?: string;
  /** The query parameters, with their rules. */
  readonly query?: string;
  /** What it does and answers. */
  readonly does: string;
}

/** The body of `POST /_sandbox/tasks/{id}/advance`. */
export const ADVANCE_BODY = `{"status": "<target>"} or none (one step along the delivery path); <target>: one of ${[...TASK_STATUSES, ...WEBHOOK_ONLY_EVENTS].join(', ')}`;

/** The body of `POST /_sandbox/top-ups/complete`. */
export const TOP_UP_COMPLETION_BODY =
  '{"paymentUrl": "<the paymentUrl of a top-up link, as POST tasks/wallet-topup answered it>"}';

/** The body of `POST /_sandbox/faults`. */
export const FAULT_BODY =
  '{"kind": "<fault kind>", "operation"?: "<operation>" or [..], "times"?: <n> or "Infinity", …the kind\'s own fields} (GET /_sandbox/faults lists each kind with its JSON Schema)';

/** The body of `POST /_sandbox/webhook-url`. */
export const WEBHOOK_URL_BODY = '{"url": "<absolute http(s) URL>"} or {"url": null} (no webhooks)';

/** Every control endpoint, in the order of the help. */
export const CONTROL_ENDPOINTS: readonly ControlEndpoint[] = [
  { method: 'GET', path: '/_sandbox', does: 'this list of endpoints with their bodies' },
  {
    method: 'POST',
    path: '/_sandbox/tasks/{id}/advance',
    body: ADVANCE_BODY,
    does: 'moves a task (webhooks sent for each step); answers the task',
  },
  {
    method: 'POST',
    path: '/_sandbox/top-ups/complete',
    body: TOP_UP_COMPLETION_BODY,
    does: 'pays a top-up link, once; answers {paymentUrl, amount, walletAmount}',
  },
  {
    method: 'POST',
    path: '/_sandbox/faults',
    body: FAULT_BODY,
    does: 'switches a fault rule on; answers {fault}',
  },
  {
    method: 'GET',
    path: '/_sandbox/faults',
    does: 'the fault kinds (with their JSON Schema), operations and active rules',
  },
  { method: 'DELETE', path: '/_sandbox/faults', does: 'switches every fault rule off' },
  {
    method: 'DELETE',
    path: '/_sandbox/faults/{index}',
    does: 'switches one active rule off (its index in GET)',
  },
  {
    method: 'POST',
    path: '/_sandbox/reset',
    does: 'back to the start: tasks, wallet, faults and logs (the seed restored; the webhook URL kept)',
  },
  {
    method: 'POST',
    path: '/_sandbox/webhook-url',
    body: WEBHOOK_URL_BODY,
    does: 'where webhooks go from now on; answers {webhookUrl}',
  },
  {
    method: 'GET',
    path: '/_sandbox/requests',
    query: 'limit=1…200, before=<n>',
    does: 'the request log, a page',
  },
  { method: 'GET', path: '/_sandbox/tasks', query: 'limit=1…1000', does: 'the newest tasks with their fees' },
  { method: 'GET', path: '/_sandbox/tasks/{id}', does: 'one task, its fee and its events' },
  { method: 'GET', path: '/_sandbox/webhooks', does: 'the webhook URL and the deliveries kept' },
  { method: 'POST', path: '/_sandbox/webhooks/{seq}/resend', does: 'sends a kept delivery again' },
  { method: 'GET', path: '/_sandbox/wallet', does: 'the wallet and the top-up links' },
  { method: 'GET', path: '/_sandbox/events', does: 'Server-Sent Events of every change (the dashboard)' },
];

/** An endpoint for the help: `POST /_sandbox/faults: what it does`, then its body on a line of its own. */
export function endpointLines(endpoint: ControlEndpoint, indent = '  '): string {
  const query = endpoint.query === undefined ? '' : ` ?${endpoint.query}`;
  const body = endpoint.body === undefined ? '' : `\n${indent}    body: ${endpoint.body}`;
  return `${indent}${endpoint.method} ${endpoint.path}${query}: ${endpoint.does}${body}`;
}
