/**
 * `createMockDeliveryService`: the store, account, handlers, lifecycle, webhooks and faults wired together.
 * @module
 */
import type { HttpHandler } from 'msw';
import { type SetupServer, setupServer } from 'msw/node';
import { kwd } from '../kwd.js';
import type { Task } from '../schemas/task.js';
import type { ServiceState } from './endpoints.js';
import { interceptFetch } from './fetch-interception.js';
import { createHandlers } from './handlers.js';
import { createObjectIdGenerator, createSequenceIdGenerator } from './ids.js';
import { applyEvent, mockDriver, plannedEventsOf } from './lifecycle.js';
import {
  ChangeFeed,
  MOCK_OBSERVERS,
  type MockObservers,
  type NumberedWebhookDelivery,
  ObservedAccount,
  ObservedFaultQueue,
  ObservedTaskStore,
} from './mock-observers.js';
import { runtimeWithoutMswInterception } from './msw-support.js';
import { resolveOptions, resolveWebhookUrl, type ServiceConfig } from './options.js';
import { RequestLog } from './request-log.js';
import { seedRecords } from './seed.js';
import type { TaskRecord } from './state.js';
import type {
  MockDeliveryService,
  MockDeliveryServiceOptions,
  MockFaultRule,
  MockListenOptions,
  MockOperation,
  MockRecordedRequest,
  MockWallet,
  MockWebhookDelivery,
} from './types.js';
import { serviceOnly } from './unhandled-requests.js';
import { sendWebhook, WebhookDeliveryLog, type WebhookPost } from './webhook-delivery.js';
import { webhookFormOf } from './webhook-form.js';

const UNHANDLED_FRAME_STRATEGIES = ['error', 'warn', 'bypass'] as const;

class MockDeliveryServiceImpl implements MockDeliveryService {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly sellerId: string;
  readonly handlers: readonly HttpHandler[];

  readonly #config: ServiceConfig;
  readonly #state: ServiceState;
  readonly #feed = new ChangeFeed();
  readonly #faults = new ObservedFaultQueue(this.#feed);
  readonly #log: RequestLog;
  /** The seed tasks as they are at the start: cloned into the store at construction and on every reset. */
  readonly #seeds: readonly TaskRecord[];
  readonly #webhookDeliveries: WebhookDeliveryLog;
  /** Aborts on reset() and close(), ending delays, stalled bodies and webhook POSTs. */
  #lifetime = new AbortController();
  /** Counts resets and closes, so that a webhook POST that outlives one is not logged. */
  #generation = 0;
  /** msw's `setupServer`, or where it cannot intercept, this mock's own interception of `fetch`. */
  #server: Pick<SetupServer, 'close'> | undefined;
  /** The webhook receiver's URL now: the option, then whatever `setWebhookUrl` set. */
  #webhookUrl: string | undefined;

  constructor(options: MockDeliveryServiceOptions | undefined) {
    const config = resolveOptions(options);
    this.#config = config;
    this.#webhookUrl = config.webhookUrl;
    this.baseUrl = config.address.baseUrl;
    this.apiKey = config.apiKey;
    this.sellerId = config.sellerId;
    this.#state = {
      config,
      store: new ObservedTaskStore(config.taskLimit, this.#feed),
      account: new ObservedAccount(config.accountType, config.openingBalanceFils, this.#feed),
      objectId: createObjectIdGenerator(config.now),
      deliveryId: createSequenceIdGenerator('DLV-'),
    };
    this.#log = new RequestLog(config.recordLimit);
    this.#webhookDeliveries = new WebhookDeliveryLog(config.recordLimit);
    this.#seeds = Object.freeze(seedRecords(this.#state, config.seeds));
    this.#plantSeeds();
    this.handlers = Object.freeze(
      createHandlers({
        state: this.#state,
        faults: this.#faults,
        log: this.#log,
        lifetime: () => this.#lifetime.signal,
        webhookUrl: () => this.#webhookUrl,
      }),
    );
    // Keep the API key out of console.log, util.inspect and JSON.stringify of the mock.
    Object.defineProperty(this, 'apiKey', { enumerable: false });
    Object.defineProperty(this, MOCK_OBSERVERS, { value: this.#observers(), enumerable: false });
  }

  listen(options: MockListenOptions = {}): void {
    if (this.#server) throw new Error('This mock delivery service is already listening; call close() first');
    const strategy = options.onUnhandledFrame;
    if (strategy !== undefined && !UNHANDLED_FRAME_STRATEGIES.includes(strategy)) {
      throw new TypeError(`onUnhandledFrame must be one of ${UNHANDLED_FRAME_STRATEGIES.join(', ')}`);
    }
    const decide = strategy ?? serviceOnly(this.baseUrl);
    const unsupported = runtimeWithoutMswInterception();
    if (unsupported?.startsWith('Node.js')) {
      // msw's interceptors need Node.js ≥ 22.12; its handlers do not: this mock intercepts fetch itself.
      this.#server = interceptFetch(this.handlers, decide);
      return;
    }
    if (unsupported !== undefined) {
      throw new Error(
        `mock.listen() cannot intercept requests on ${unsupported}: msw's setupServer does not intercept there. ` +
          "Serve the mock over HTTP instead: `const server = await startMockHttpServer(mock)` (from 'delivery-task-sdk/testing'), " +
          'then give the client `baseUrl: server.url`.',
      );
    }
    const server = setupServer(...this.handlers);
    server.listen({
      onUnhandledFrame:
        typeof decide === 'string'
          ? decide
          : ({ frame, defaults }) => {
              const { request } = frame.data as { request?: unknown };
              if (!(request instanceof Request) || decide(request) === 'error') defaults.error();
            },
    });
    this.#server = server;
  }

  close(): void {
    this.#endPending();
    this.#server?.close();
    this.#server = undefined;
  }

  get webhookUrl(): string | undefined {
    return this.#webhookUrl;
  }

  setWebhookUrl(url: string | undefined): void {
    this.#webhookUrl = resolveWebhookUrl(url);
  }

  get tasks(): readonly Task[] {
    return Object.freeze(this.#state.store.all().map((record) => structuredClone(record.task)));
  }

  task(id: string): Task | undefined {
    const record = this.#state.store.get(id);
    return record ? structuredClone(record.task) : undefined;
  }

  get wallet(): MockWallet {
    return this.#state.account.snapshot();
  }

  get requests(): readonly MockRecordedRequest[] {
    return this.#log.all();
  }

  requestsFor(operation: MockOperation): readonly MockRecordedRequest[] {
    return Object.freeze(this.#log.all().filter((request) => request.operation === operation));
  }

  get webhookDeliveries(): readonly MockWebhookDelivery[] {
    return Object.freeze(
      this.#webhookDeliveries.all().map(({ seq: _seq, resentFrom: _resentFrom, ...delivery }) => delivery),
    );
  }

  async advance(taskId: string, status?: string): Promise<Task> {
    const record = this.#state.store.get(taskId);
    if (!record) throw new Error(`Cannot advance task ${JSON.stringify(taskId)}: no such task`);
    const events = plannedEventsOf(record, taskId, status);
    const { config, objectId } = this.#state;
    const webhookUrl = this.#webhookUrl;
    const posts: WebhookPost[] = [];
    const deliveryId = record.task.deliveryId ?? taskId;
    for (const event of events) {
      applyEvent(record, event, {
        timestamp: config.now().toISOString(),
        historyId: objectId,
        driver: () => mockDriver(config.address.origin, deliveryId),
      });
      if (webhookUrl !== undefined) {
        posts.push({ url: webhookUrl, taskId, status: event, body: webhookFormOf(record, event) });
      }
    }
    const task = structuredClone(record.task);
    this.#feed.emit({ kind: 'task', taskId });
    const generation = this.#generation;
    const cancel = this.#lifetime.signal;
    for (const post of posts) {
      const delivery = await sendWebhook(post, cancel);
      if (generation === this.#generation) this.#recordWebhookDelivery(delivery);
    }
    return task;
  }

  completeTopUp(paymentUrl: string): number {
    const balanceFils = this.#state.account.completeTopUp(paymentUrl, this.#config.now());
    return kwd.toNumber(kwd.fromFils(balanceFils));
  }

  inject(rule: MockFaultRule): void {
    this.#faults.inject(rule);
  }

  clearFaults(): void {
    this.#faults.clear();
  }

  reset(): void {
    this.#endPending();
    this.#state.store.clear();
    this.#plantSeeds();
    this.#state.account.reset();
    this.#faults.clear();
    this.#log.clear();
    this.#webhookDeliveries.clear();
    this.#feed.emit({ kind: 'reset' });
  }

  /**
   * Stores fresh copies of the seed tasks, after any task already stored (a new creation order each time).
   */
  #plantSeeds(): void {
    const { store } = this.#state;
    for (const seed of this.#seeds) store.add({ ...structuredClone(seed), seq: store.nextSeq() });
  }

  /**
   * Keeps a webhook delivery (the log drops the oldest beyond `recordLimit` or its bytes), and numbers it.
   */
  #recordWebhookDelivery(delivery: MockWebhookDelivery, resentFrom?: number): NumberedWebhookDelivery {
    const numbered = this.#webhookDeliveries.add(delivery, resentFrom);
    this.#feed.emit({ kind: 'webhook', delivery: structuredClone(numbered) });
    return numbered;
  }

  #observers(): MockObservers {
    const store = this.#state.store as ObservedTaskStore;
    const account = this.#state.account as ObservedAccount;
    return {
      subscribe: (listener) => this.#feed.subscribe(listener),
      record: (taskId) => store.get(taskId),
      newestRecords: (limit) => store.newest(limit),
      topUps: () => account.topUps(),
      requestPage: (limit, before) => this.#log.page(limit, before),
      requestLogPage: (limit, before) => this.#log.entries(limit, before),
      requestCredentials: () => this.#log.credentials(),
      webhookPage: (limit, before) => this.#webhookDeliveries.page(limit, before),
      faultRules: () => this.#faults.rules(),
      removeFaultRule: (index) => this.#faults.remove(index),
      webhookDeliveries: () => this.#webhookDeliveries.all(),
      resendWebhook: async (seq) => {
        const original = this.#webhookDeliveries.find(seq);
        if (!original) return undefined;
        const generation = this.#generation;
        const post: WebhookPost = {
          url: original.url,
          taskId: original.taskId,
          status: original.status,
          body: structuredClone(original.body) as Record<string, unknown>,
        };
        const delivery = await sendWebhook(post, this.#lifetime.signal);
        if (generation !== this.#generation) return { ...delivery, seq: 0, resentFrom: seq };
        return structuredClone(this.#recordWebhookDelivery(delivery, seq));
      },
    };
  }

  #endPending(): void {
    this.#generation += 1;
    this.#lifetime.abort();
    this.#lifetime = new AbortController();
  }
}

/**
 * A stateful msw mock of the Delivery Task Service: credentials, validation, tasks, fees, pages, search,
 * estimates, top-ups, {@link MockDeliveryService.advance} with webhooks, and faults (docs/testing.md).
 *
 * ```ts
 * const mock = createMockDeliveryService({ account: { type: 'wallet', balance: 20 } });
 * beforeAll(() => mock.listen());        // or setupServer(...mock.handlers) in your own server
 * afterEach(() => mock.reset());
 * afterAll(() => mock.close());
 * ```
 * @param options see {@link MockDeliveryServiceOptions}; every option has a default ({@link MOCK_DEFAULTS}).
 * @throws {ConfigurationError} for an unknown or invalid option: `option` its path (`account.type`,
 * `branches.2.name`, `tasks.0.status`, `taskLimit`), the message `Invalid <path>: expected <what>, got
 * <value>` (the API key and seller id shown only by their kind and length). `checkMockOptions` checks
 * options the same way without making a mock.
 */
export function createMockDeliveryService(options?: MockDeliveryServiceOptions): MockDeliveryService {
  return new MockDeliveryServiceImpl(options);
}
