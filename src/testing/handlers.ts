/**
 * The mock's msw handlers: route, record, early faults, authentication, the operation, late faults. @module
 */
import { type HttpHandler, http, passthrough } from 'msw';
import { authenticatedSeller, unauthorized } from './auth.js';
import { driftedResponse } from './drift.js';
import { OPERATION_HANDLERS, type OperationRequest, type ServiceState } from './endpoints.js';
import {
  type FaultQueue,
  injectedStatusResponse,
  invalidJsonResponse,
  stalledBodyResponse,
  waitUnlessAborted,
} from './faults.js';
import { firstValues } from './listing.js';
import type { RequestLog } from './request-log.js';
import { droppedConnection, errorResponse } from './responses.js';
import { type Route, routeOf, segmentsAfterCollection } from './routes.js';
import type { MockFault } from './types.js';

/** What the handlers work on. */
export interface HandlerContext {
  readonly state: ServiceState;
  readonly faults: FaultQueue;
  readonly log: RequestLog;
  /** The signal that aborts on the mock's next reset() or close(). */
  readonly lifetime: () => AbortSignal;
  /** The webhook receiver's URL now (it may be set after the handlers are made), or `undefined`. */
  readonly webhookUrl: () => string | undefined;
}

function answerUnknownRoute(
  route: Extract<Route, { operation: 'unknown' }>,
  method: string,
  path: string,
): Response {
  switch (route.problem) {
    case 'method-not-allowed': {
      const response = errorResponse(405, `Method ${method} is not allowed on ${path}`, 'METHOD_NOT_ALLOWED');
      response.headers.set('allow', route.allow);
      return response;
    }
    case 'malformed-param':
      return errorResponse(400, `${route.param}: malformed percent-encoding`, 'BAD_REQUEST');
    default:
      return errorResponse(404, `No route for ${method} ${path}`, 'NOT_FOUND');
  }
}

/** Authentication, then the operation; an unexpected exception becomes a 500 that names it. */
function processRequest(
  context: HandlerContext,
  request: Request,
  route: Route,
  body: string,
  fault: MockFault | undefined,
): Response {
  const { state } = context;
  const sellerId = authenticatedSeller(state.config, request.headers);
  if (sellerId === undefined) return unauthorized();
  const url = new URL(request.url);
  if (route.operation === 'unknown') return answerUnknownRoute(route, request.method, url.pathname);
  const operationRequest: OperationRequest = {
    url,
    body,
    contentType: request.headers.get('content-type'),
    sellerId,
    params: route.params,
    repeatFirstPage: fault?.kind === 'repeat-page',
    sortOverride:
      fault?.kind === 'sort'
        ? { sortBy: fault.sortBy ?? 'createdAt', sortOrder: fault.sortOrder ?? 1 }
        : undefined,
  };
  try {
    return OPERATION_HANDLERS[route.operation](state, operationRequest);
  } catch (error) {
    return errorResponse(500, `The mock failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Requests answered so far by each mock, for its request ids. */
const answered = new WeakMap<HandlerContext, number>();

/**
 * The next request id of the mock behind `context`: `req_000001`, `req_000002`, … (reset() does not restart
 * it).
 */
function nextRequestId(context: HandlerContext): string {
  const count = (answered.get(context) ?? 0) + 1;
  answered.set(context, count);
  return `req_${String(count).padStart(6, '0')}`;
}

/** `response` carrying `x-request-id`, as the SDK reads it into `APIError.requestId`. */
function withRequestId(response: Response, requestId: string): Response {
  // A dropped connection has no headers; a fault that set its own id keeps it.
  if (response.type === 'error' || response.headers.has('x-request-id')) return response;
  try {
    response.headers.set('x-request-id', requestId);
    return response;
  } catch {
    // Immutable headers (a response made by fetch): answer a copy.
    const copy = new Response(response.body, response);
    copy.headers.set('x-request-id', requestId);
    return copy;
  }
}

/**
 * Every answer of the service carries an `x-request-id`, like a real API's (dropped connections have none).
 */
async function handleServiceRequest(
  context: HandlerContext,
  request: Request,
  segments: string[],
): Promise<Response> {
  const requestId = nextRequestId(context);
  return withRequestId(await answerServiceRequest(context, request, segments), requestId);
}

/** The whole path of one request to the service (see the module comment). */
async function answerServiceRequest(
  context: HandlerContext,
  request: Request,
  segments: string[],
): Promise<Response> {
  const url = new URL(request.url);
  const route = routeOf(request.method, segments);
  const body = await request.text();
  const lifetime = context.lifetime();
  const authenticated = authenticatedSeller(context.state.config, request.headers) !== undefined;
  const entry = context.log.add(
    {
      operation: route.operation,
      method: request.method,
      url: request.url,
      path: url.pathname,
      query: firstValues(url.searchParams),
      headers: Object.fromEntries(request.headers),
    },
    body,
    authenticated,
  );
  const fault = route.operation === 'unknown' ? undefined : context.faults.take(route.operation);
  if (fault) entry.fault = fault.kind;
  if (fault?.kind === 'status') {
    const response = injectedStatusResponse(fault);
    entry.status = response.status;
    return response;
  }
  if (fault?.kind === 'network-error') {
    entry.status = 'network-error';
    return droppedConnection();
  }
  const response = processRequest(context, request, route, body, fault);
  switch (fault?.kind) {
    case 'commit-then-drop':
      entry.status = 'network-error';
      return droppedConnection();
    case 'delay': {
      const waited = await waitUnlessAborted(fault.ms, [request.signal, lifetime]);
      if (!waited) return droppedConnection();
      entry.status = response.status;
      return response;
    }
    case 'stall-body':
      return stalledBodyResponse(response, [request.signal, lifetime]);
    case 'invalid-json':
      entry.status = response.status;
      return invalidJsonResponse(response);
    case 'drift':
      entry.status = response.status;
      return driftedResponse(response, fault.mutations);
    default:
      entry.status = response.status;
      return response;
  }
}

/** True when `url` names the webhook receiver (same origin and path; query and fragment ignored). */
function isWebhookReceiver(webhookUrl: string, url: string): boolean {
  const receiver = new URL(webhookUrl);
  const target = new URL(url);
  return target.origin === receiver.origin && target.pathname === receiver.pathname;
}

/** A passthrough for the webhook receiver (the URL set now), then one handler for `<root>[/rest]/tasks…`. */
export function createHandlers(context: HandlerContext): HttpHandler[] {
  const { config } = context.state;
  const handlers: HttpHandler[] = [];
  handlers.push(
    http.all(
      ({ request }) => {
        const webhookUrl = context.webhookUrl();
        return webhookUrl !== undefined && isWebhookReceiver(webhookUrl, request.url);
      },
      () => passthrough(),
    ),
  );
  handlers.push(
    http.all(
      ({ request }) => segmentsAfterCollection(config.address, new URL(request.url)) !== undefined,
      ({ request }) =>
        handleServiceRequest(
          context,
          request,
          segmentsAfterCollection(config.address, new URL(request.url)) ?? [],
        ),
    ),
  );
  return handlers;
}
