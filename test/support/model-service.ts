/**
 * The service of a generated world: the shipped mock (`createMockDeliveryService`, its fault rules) behind
 * a front that each process's client uses as its `fetch` (CONTRIBUTING.md "Model tests"). Requests reach
 * the mock's own handlers (`getResponse`), so its authentication, request log and one-shot fault rules
 * (a lost answer, a refusal, a slow answer) apply. The mock plays one rule per request, the first that
 * matches, so what a world's service does on every request is played here, on a 2xx, with the mock's own
 * listing code: the order `GET tasks` really sorts in (as its `sort` fault), timestamps without a zone
 * (as its `times-without-zone` drift), answers without `id`, a delay before a new task is listed, a
 * queue that holds a POST before serving it (whether its client is still there or not), and time on the
 * wire.
 */
import { getResponse } from 'msw';
import type { Task } from '../../src/index.js';
import { listPage, parseListQuery, type TaskListQuery } from '../../src/testing/listing.js';
import { routeOf, segmentsAfterCollection, serviceAddress } from '../../src/testing/routes.js';
import type { TaskRecord } from '../../src/testing/state.js';
import { createMockDeliveryService, type MockDeliveryService, observersOf } from '../../src/testing.js';
import type { ProcessGate } from './model-processes.js';

/** What the service does where the contract leaves it open. */
export interface ServiceBehaviour {
  /** What `GET tasks` sorts by, whatever it is asked: as asked, oldest created first, or newest updated first. */
  sort: 'honoured' | 'oldest-first' | 'updated-newest-first';
  /** `createdAt`, `updatedAt` and history timestamps in UTC without a zone (`2026-11-20T09:00:00.000`). */
  zoneless: boolean;
  /** Which answers leave out the task's `id` (the contract: every response field is optional). */
  ids: 'present' | 'absent-on-create' | 'absent-on-list' | 'absent-on-retrieve';
  /** A new task is listed this long after it was created, ms. */
  listingDelayMs: number;
  /** Each way, per request, ms. */
  latencyMs: number;
  /** A POST that arrived waits this long before it is served, served even if its client has gone, ms. */
  queueMs: number;
}

export const SERVICE_HONEST: ServiceBehaviour = {
  sort: 'honoured',
  zoneless: false,
  ids: 'present',
  listingDelayMs: 0,
  latencyMs: 5,
  queueMs: 0,
};

/** The mock's base URL; each incarnation reaches it under its own host (`p1-1.delivery.test`). */
export const SERVICE_BASE_URL = 'https://delivery.test/rest';
const address = serviceAddress(SERVICE_BASE_URL);

/** One `POST tasks` that reached the mock. */
export interface ArrivedCreate {
  readonly orderNumber: string | undefined;
  readonly process: string;
  /** ms since the epoch (the world's clock). */
  readonly at: number;
}

function abortable(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const zoneless = (text: unknown) =>
  typeof text === 'string' ? text.replace(/(Z|[+-]\d\d:\d\d)$/, '') : text;

let mock: MockDeliveryService | undefined;

export class ServiceFront {
  readonly mock: MockDeliveryService;
  readonly behaviour: ServiceBehaviour;
  readonly creates: ArrivedCreate[] = [];
  /** POSTs served late ({@link ServiceFront.holdNextPost}): their order and when the service served them. */
  readonly latePosts: { readonly orderNumber: string | undefined; readonly servedAt: number }[] = [];
  /** How long to hold each of the next POSTs, ms, the next first. */
  readonly #holds: number[] = [];

  /** A service for a new world: the one mock of this file, reset (its handlers cost a stack trace each to build). */
  constructor(behaviour: ServiceBehaviour) {
    this.behaviour = behaviour;
    mock ??= createMockDeliveryService({ baseUrl: SERVICE_BASE_URL, account: { type: 'invoice' } });
    mock.reset();
    this.mock = mock;
  }

  /**
   * Holds the next `POST tasks` to arrive `ms` before serving it, served whether or not its client is still
   * waiting (a request queued in a load balancer after its client gave up).
   */
  holdNextPost(ms: number): void {
    this.#holds.push(ms);
  }

  /** The base URL an incarnation's client is given. */
  baseUrlOf(gate: ProcessGate): string {
    return `https://${gate.host}/rest`;
  }

  /**
   * The `fetch` of one incarnation: through its gate, then the wire's latency, then the mock. A request
   * held by a stall is sent when the stall ends even if its signal aborted meanwhile: a frozen process
   * runs no timer, and picks up where it stopped, sending (only later aborts count).
   */
  fetchOf(gate: ProcessGate): typeof globalThis.fetch {
    return async (input, init) => {
      const request = new Request(input, init);
      if (request.signal.aborted) throw request.signal.reason;
      return gate.cross(request.method === 'POST' ? 'POST' : 'GET', () => {
        const later = new AbortController();
        if (!request.signal.aborted) {
          request.signal.addEventListener('abort', () => later.abort(request.signal.reason), { once: true });
        }
        return this.#serve(request, later.signal, gate);
      });
    };
  }

  /** Records of the mock, oldest first. */
  records(): readonly TaskRecord[] {
    return observersOf(this.mock)?.newestRecords(Number.MAX_SAFE_INTEGER).records.toReversed() ?? [];
  }

  /** Creates a task on the mock directly (a seed of the world), at the world's time. */
  async seed(body: Record<string, unknown>): Promise<Task> {
    const request = new Request(`${SERVICE_BASE_URL}/tasks`, {
      method: 'POST',
      headers: {
        authorization: `apikey ${this.mock.apiKey}`,
        'x-seller-id': this.mock.sellerId,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    const answer = await getResponse([...this.mock.handlers], request);
    const created = (await answer?.json()) as { data?: { createTask?: Task } } | undefined;
    if (answer?.status !== 200 || created?.data?.createTask === undefined)
      throw new Error('seeding a task failed');
    return created.data.createTask;
  }

  async #serve(request: Request, signal: AbortSignal, gate: ProcessGate): Promise<Response> {
    const latency = this.behaviour.latencyMs;
    await abortable(latency, signal);
    const url = new URL(request.url);
    url.host = new URL(SERVICE_BASE_URL).host;
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text();
    const route = routeOf(request.method, segmentsAfterCollection(address, url) ?? []);
    const held = route.operation === 'tasks.create' ? this.#holds.shift() : undefined;
    const queueMs = route.operation === 'tasks.create' ? (held ?? this.behaviour.queueMs) : 0;
    const queued = queueMs > 0;
    // Arrived: a queued POST is served when its turn comes, its client there or not.
    if (queued) await new Promise<void>((resolve) => setTimeout(resolve, queueMs));
    if (held !== undefined) this.latePosts.push({ orderNumber: orderNumberOf(body), servedAt: Date.now() });
    const forwarded = new Request(url, {
      method: request.method,
      headers: request.headers,
      ...(queued ? {} : { signal }),
      ...(body === undefined ? {} : { body }),
    });
    if (route.operation === 'tasks.create') {
      this.creates.push({ orderNumber: orderNumberOf(body), process: gate.name, at: Date.now() });
    }
    const answer = await getResponse([...this.mock.handlers], forwarded);
    if (signal.aborted) throw signal.reason;
    if (answer === undefined)
      throw new TypeError(`fetch failed: nothing serves ${request.method} ${url.pathname}`);
    if (answer.type === 'error')
      throw new TypeError('fetch failed', { cause: new Error('the service dropped it') });
    const shaped =
      answer.status === 200 || answer.status === 201
        ? await this.#shape(route.operation, answer, url)
        : answer;
    await abortable(latency, signal);
    return shaped;
  }

  /** A 2xx as this service would send it (see {@link ServiceBehaviour}). */
  async #shape(operation: string, answer: Response, url: URL): Promise<Response> {
    const { ids } = this.behaviour;
    let body: unknown;
    if (operation === 'tasks.list') {
      body = this.#list(url);
    } else {
      try {
        body = await answer.clone().json();
      } catch {
        return answer;
      }
    }
    const shapeTask = (task: unknown, dropId: boolean) => this.#task(task, dropId);
    if (operation === 'tasks.list') {
      const page = body as { tasks: unknown[] };
      page.tasks = page.tasks.map((task) => shapeTask(task, ids === 'absent-on-list'));
    } else if (operation === 'tasks.retrieve') {
      body = shapeTask(body, ids === 'absent-on-retrieve');
    } else if (operation === 'tasks.create') {
      const created = body as { data?: { createTask?: unknown } };
      if (created.data?.createTask !== undefined) {
        created.data.createTask = shapeTask(created.data.createTask, ids === 'absent-on-create');
      }
    } else {
      return answer;
    }
    const headers = new Headers(answer.headers);
    headers.delete('content-length');
    return new Response(JSON.stringify(body), { status: answer.status, headers });
  }

  #task(value: unknown, dropId: boolean): unknown {
    if (typeof value !== 'object' || value === null) return value;
    const task = structuredClone(value) as Record<string, unknown>;
    if (dropId) {
      delete task.id;
      delete task._id;
    }
    if (this.behaviour.zoneless) {
      task.createdAt = zoneless(task.createdAt);
      task.updatedAt = zoneless(task.updatedAt);
      if (Array.isArray(task.statusHistory)) {
        for (const entry of task.statusHistory as Record<string, unknown>[])
          entry.timestamp = zoneless(entry.timestamp);
      }
    }
    return task;
  }

  /** The page of `GET tasks` this service answers: listed tasks only, in the order it really sorts by. */
  #list(url: URL): { tasks: Task[]; page: number; limit: number; totalPages: number; total: number } {
    const parsed = parseListQuery(url.searchParams);
    if (!parsed.ok) throw new Error(`the mock answered 200 to a query it refuses: ${parsed.message}`);
    const listedBefore = Date.now() - this.behaviour.listingDelayMs;
    const listed = this.records().filter((record) => Date.parse(record.task.createdAt ?? '') <= listedBefore);
    const query: TaskListQuery = { ...parsed.value, order: this.#order(parsed.value.order) };
    const page = listPage(listed, query);
    return {
      tasks: page.records.map((record) => structuredClone(record.task)),
      page: page.page,
      limit: page.limit,
      totalPages: page.totalPages,
      total: page.total,
    };
  }

  /** The order this service lists in: as asked, or as the mock's `sort` fault would (its own comparator). */
  #order(asked: TaskListQuery['order']): TaskListQuery['order'] {
    const { sort } = this.behaviour;
    if (sort === 'honoured') return asked;
    const [sortBy, sortOrder] = sort === 'oldest-first' ? ['createdAt', '1'] : ['updatedAt', '-1'];
    const query = parseListQuery(new URLSearchParams({ sortBy, sortOrder }));
    if (!query.ok) throw new Error(query.message);
    return query.value.order;
  }
}

function orderNumberOf(body: string | undefined): string | undefined {
  try {
    const parsed = JSON.parse(body ?? '') as { orderNumber?: unknown };
    return typeof parsed.orderNumber === 'string' ? parsed.orderNumber : undefined;
  } catch {
    return undefined;
  }
}
