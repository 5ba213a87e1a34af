/**
 * Public types of the test kit `delivery-task-sdk/testing`: the options of
 * `createMockDeliveryService`, the mock it returns, and what it records.
 *
 * The mock implements the contract of the Delivery Task Service (spec "Delivery Task Service
 * Interface") and fills what the spec leaves open with the choices of README "What the spec leaves
 * open, and what we chose" (docs/spec-choices.md).
 * @module
 */
import type { HttpHandler } from 'msw';
import type { OperationName } from '../core/operations.js';
import type { KwdAmount } from '../kwd.js';
import type { Task, TaskStatus } from '../schemas/task.js';
import type { TaskCreateParams } from '../schemas/task-create.js';
import type { MockDriftMutation } from './drift.js';

/**
 * One operation of the service (`tasks.create`, `tasks.retrieve`, …), named like the SDK method that calls
 * it: the table of operations in docs/testing.md (README "Testing your integration").
 */
export type MockOperation = OperationName;

/**
 * The seller's account (README "What the spec leaves open, and what we chose").
 *
 * - `wallet`: prepaid. `balance` is the opening balance in KWD (number or decimal text, ≥ 0, at most
 *   3 decimals). Each created task's fee is deducted; a create whose fee exceeds the balance is
 *   rejected with 402 `INSUFFICIENT_BALANCE`.
 * - `invoice`: no balance check and no deduction; the balance reads 0 and top-ups are refused with 400
 *   `INVOICE_ACCOUNT`. Fees are added to {@link MockWallet.invoicedFils} instead.
 */
export type MockAccount = { type: 'wallet'; balance: KwdAmount } | { type: 'invoice' };

/**
 * How the mock prices a delivery: `fee = baseFee + perKm × distance (km)`, rounded half-up to the
 * fils. The distance is the `travelDetail.totalDistance` of the task or estimate (haversine, rounded to
 * the metre). The minimum wallet balance for a create is the fee itself.
 */
export interface MockPricing {
  /** Fixed part of every fee, KWD, ≥ 0, at most 3 decimals. Default `0.750`. */
  baseFee?: KwdAmount;
  /** Price per kilometre, KWD, ≥ 0, at most 3 decimals. Default `0.100`. */
  perKm?: KwdAmount;
}

/** A point in decimal degrees (latitude −90…90, longitude −180…180). */
export interface MockPoint {
  latitude: number;
  longitude: number;
}

/**
 * A pickup branch served by `GET tasks/branches`. A string is a branch name (its id becomes
 * `branch-<n>`, n counting from 1 in the order given). An object keeps every field it has; without an
 * `id` it gets `branch-<n>`. Numeric `latitude`/`longitude` fields make the branch the pickup point of
 * tasks created with it as `selectedBranch`; an `address` string becomes their pickup address.
 */
export type MockBranch = string | { name: string; id?: string; [field: string]: unknown };

/**
 * A task the mock holds from the start and again after every `reset()`: the body of a `POST tasks`
 * (checked as the service checks one: unknown fields, bad coordinates, an unknown `selectedBranch` are
 * rejected), plus its `id` and the `status` it has reached.
 *
 * It is stored as a create would store it (fee, travel detail, pickup point, delivery id), then moved
 * along the lifecycle to `status` with one `statusHistory` entry per step (no webhooks are sent). Its
 * fee is not charged: the opening balance is the balance the account starts with.
 */
export type MockSeedTask = TaskCreateParams & {
  /** The task id: a non-empty string, unique among the seed tasks. Default: a new mock id. */
  id?: string;
  /** The status the task has reached (one of the nine task statuses). Default `'pending'`. */
  status?: TaskStatus;
};

/** Options of `createMockDeliveryService`. Every option is optional. */
export interface MockDeliveryServiceOptions {
  /** API key the mock accepts in `Authorization: apikey <apiKey>`. Default `'test-api-key'`. */
  apiKey?: string;
  /** Seller id the mock accepts in `x-seller-id`. Default `'test-seller'`. */
  sellerId?: string;
  /**
   * Base URL of the service, http or https, without query or fragment. Default
   * `'https://delivery.test'`. A trailing slash and a trailing `/rest` segment are removed to find the
   * root; the mock then serves both `<root>/tasks…` (reference form) and `<root>/rest/tasks…`
   * (quickstart form). A path before that is kept: `'https://h/api'` serves `https://h/api/tasks` and
   * `https://h/api/rest/tasks`.
   */
  baseUrl?: string;
  /** The seller's account. Default `{ type: 'wallet', balance: 100 }` (100 KWD). */
  account?: MockAccount;
  /** Branches for `GET tasks/branches` and `selectedBranch`. Default: 3 branches in Kuwait (see `MOCK_DEFAULTS.branches`). */
  branches?: ReadonlyArray<MockBranch>;
  /** Fee schedule. Defaults: `baseFee` 0.750 KWD, `perKm` 0.100 KWD. */
  pricing?: MockPricing;
  /** The seller's default pickup point. Default Kuwait City (29.3759, 47.9774). */
  origin?: MockPoint;
  /**
   * Absolute http(s) URL of the seller's webhook receiver. When set, every status change made by
   * {@link MockDeliveryService.advance} is POSTed there over real HTTP (JSON, 5 s timeout, no retry;
   * OpenAPI webhook `taskStatusChanged`), and {@link MockDeliveryService.handlers} includes a `passthrough()` handler for it so
   * that the POST gets past msw. Default: none (no webhooks are sent).
   */
  webhookUrl?: string;
  /** HTTP status of a successful `POST tasks`. Default `200`. */
  createStatus?: 200 | 201;
  /** The mock's clock, used for timestamps, ids and top-up expiry. Default `() => new Date()`. */
  now?: () => Date;
  /**
   * Tasks present from the start and restored by every `reset()` (see {@link MockSeedTask}), in order
   * (the first is the oldest). Default: none.
   * @throws {TypeError} from `createMockDeliveryService` for an invalid seed task, naming its field
   * (`tasks[2].deliveryLocation.latitude: …`).
   */
  tasks?: ReadonlyArray<MockSeedTask>;
  /**
   * How many recorded requests ({@link MockDeliveryService.requests}) and how many webhook deliveries
   * ({@link MockDeliveryService.webhookDeliveries}) are kept: the most recent ones, the oldest dropped
   * first. A positive integer. Default `10_000` each.
   */
  recordLimit?: number;
  /**
   * How many tasks the mock keeps: creating one more forgets the oldest (its id then answers 404), so a
   * long-lived mock or sandbox stays bounded (a task takes about 2.4 KB). A positive integer, at least
   * the number of seed `tasks`. Default `50_000`.
   */
  taskLimit?: number;
}

/** Options of {@link MockDeliveryService.listen}. */
export interface MockListenOptions {
  /**
   * What msw does with a request no handler matches (msw 3's `onUnhandledFrame`). Default `'error'`:
   * the request fails, so a test never reaches a real network by accident.
   */
  onUnhandledFrame?: 'error' | 'warn' | 'bypass';
}

/** A read-only view of the seller's account. Money is given both in KWD (numbers) and in integer fils. */
export interface MockWallet {
  /** Account kind. */
  readonly type: 'wallet' | 'invoice';
  /** Current balance in KWD (0 for an invoice account). */
  readonly balance: number;
  /** Current balance in fils (1 KWD = 1000 fils). */
  readonly balanceFils: number;
  /** Sum of the fees deducted from the wallet since the last reset, in fils (always 0 for an invoice account). */
  readonly feesChargedFils: number;
  /** Number of fees deducted from the wallet since the last reset (not an amount). */
  readonly feesCharged: number;
  /** Sum of the fees put on the invoice since the last reset, in fils (always 0 for a wallet account). */
  readonly invoicedFils: number;
  /** Number of tasks put on the invoice since the last reset. */
  readonly invoiced: number;
}

/** How a recorded request was answered: an HTTP status, a dropped connection, or no (complete) answer yet. */
export type MockRecordedStatus = number | 'network-error' | 'stalled';

/** One request that reached the mock's handler, in arrival order. */
export interface MockRecordedRequest {
  /** The operation the request was routed to; `'unknown'` for a path under the service that no operation serves (answered 404 or 405). */
  readonly operation: MockOperation | 'unknown';
  /** HTTP method, upper case. */
  readonly method: string;
  /** Full request URL. */
  readonly url: string;
  /** URL path, still percent-encoded (`/tasks/..%2Fwallet-balance`). */
  readonly path: string;
  /** Query parameters; the first value of a repeated name wins. */
  readonly query: Readonly<Record<string, string>>;
  /**
   * Request headers with lower-case names (credentials included, unredacted: this is a test double);
   * each value cut to 256 characters for a request without valid credentials.
   */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Parsed JSON body, else its text, or `undefined` when empty. A body over 16 KiB or nested over 32
   * deep, and the body of a request without valid credentials, is kept as `{ truncated: true, bytes,
   * prefix }` (its length and first 256 characters; docs/sandbox.md "Bounds").
   */
  readonly body: unknown;
  /**
   * The answer: its HTTP status; `'network-error'` when the connection was dropped (fault
   * `network-error` or `commit-then-drop`); `'stalled'` while a `delay` is running, when a `delay` was
   * cut short (client abort, reset, close), or for a `stall-body` answer whose body never completes.
   */
  readonly status: MockRecordedStatus;
  /** The kind of injected fault this request carried, if any. */
  readonly fault?: MockFault['kind'];
}

/** One webhook POST made by {@link MockDeliveryService.advance}. */
export interface MockWebhookDelivery {
  /** Id of the task whose status changed. */
  readonly taskId: string;
  /** Event kind: the body's `status` (a task status, or `inprogress` / `pickup_location_reached`). */
  readonly status: string;
  /** Receiver URL. */
  readonly url: string;
  /** The JSON body sent: the webhook form of the task (OpenAPI schema `WebhookTask`). */
  readonly body: Readonly<Record<string, unknown>>;
  /** HTTP status of the receiver's answer; absent when none arrived. */
  readonly responseStatus?: number;
  /** Why no answer arrived (network error, the 5 s timeout, or a reset/close of the mock). */
  readonly error?: string;
  /** Time from sending to the end of the answer (or the failure), in ms. */
  readonly durationMs: number;
}

/**
 * A fault the mock plays instead of (or on top of) normal processing:
 *
 * | kind | effect |
 * |---|---|
 * | `status` | answers `status` with `body` (default `{ message, code }`) and `headers` **instead of** processing: nothing stored or charged |
 * | `network-error` | drops the connection **before** processing (`fetch` rejects): nothing stored or charged |
 * | `commit-then-drop` | processes fully (a task is stored, its fee charged), then drops the connection |
 * | `delay` | processes fully, then waits `ms` (may be `Infinity`) before answering; the wait ends early, dropping the connection, when the request's signal aborts or on `reset()`/`close()` |
 * | `stall-body` | processes fully, sends the status, headers (with the full `content-length`) and the first half of the body, then never finishes the body until the request aborts or `reset()`/`close()` (then the connection drops) |
 * | `invalid-json` | processes fully, then answers with the status processing produced (200 for a valid request) and a body that is not JSON, labelled `application/json` |
 * | `repeat-page` | `tasks.list` only: answers the tasks of page 1 whatever page was asked, echoing the asked `page`, with `totalPages` 1000 and `total` 1000 × limit |
 * | `drift` | processes fully, then answers its JSON body with fields drifted from their documented types by `mutations` (default: all; see {@link MockDriftMutation}), as a real service's may (README "Schema drift") |
 */
export type MockFault =
  | {
      kind: 'status';
      /** HTTP status, an integer 200…599. */
      status: number;
      /** JSON body. Default `{ message: '<reason> (injected fault)', code: '<CODE>' }`. */
      body?: unknown;
      /** Extra response headers, e.g. `{ 'retry-after': '1' }`. */
      headers?: Record<string, string>;
    }
  | { kind: 'network-error' }
  | { kind: 'commit-then-drop' }
  | {
      kind: 'delay';
      /** Wait before answering, ms, ≥ 0; `Infinity` never answers. */
      ms: number;
    }
  | { kind: 'stall-body' }
  | { kind: 'invalid-json' }
  | { kind: 'repeat-page' }
  | {
      kind: 'drift';
      /**
       * How the answer drifts: `numbers-as-text`, `money-as-numbers`, `booleans-as-text`,
       * `booleans-as-numbers`, `unknown-fields` (see {@link MockDriftMutation}). Default: every one.
       */
      mutations?: readonly MockDriftMutation[];
    };

/**
 * A fault for the next `times` requests that match `operation`. Rules are checked in the order they
 * were injected; the first match is used, its count decremented, and the rule removed at 0. A
 * `repeat-page` rule only ever matches `tasks.list`.
 */
export type MockFaultRule = MockFault & {
  /** Operations the rule applies to. Default: every operation. */
  operation?: MockOperation | readonly MockOperation[];
  /** How many matching requests get the fault: a positive integer or `Infinity`. Default 1. */
  times?: number;
};

/** The mock returned by `createMockDeliveryService`. */
export interface MockDeliveryService {
  /** The configured base URL, without a trailing slash (`/rest` kept if it was given). */
  readonly baseUrl: string;
  /** The API key the mock accepts. */
  readonly apiKey: string;
  /** The seller id the mock accepts. */
  readonly sellerId: string;
  /**
   * The msw request handlers: the service (both path forms) and a passthrough for the webhook receiver
   * (the URL set at the time of each request: `webhookUrl`, {@link setWebhookUrl}). Use them in your own
   * server: `setupServer(...mock.handlers)`.
   */
  readonly handlers: readonly HttpHandler[];
  /**
   * Starts an msw `setupServer` with {@link handlers} (intercepts `fetch` and `node:http` in this process).
   * On Node.js before 22.12, where msw's `setupServer` cannot intercept, it replaces `globalThis.fetch`
   * instead with one answered by the same handlers (the SDK's default transport; `node:http` requests are
   * not intercepted there), and {@link close} puts it back. README "Testing your integration".
   * @throws {Error} when this mock is already listening; on Bun and Deno, where neither works, naming
   * `startMockHttpServer(mock)` to use instead.
   */
  listen(options?: MockListenOptions): void;
  /** Stops the server started by {@link listen} (if any) and ends every pending delay, stalled body and webhook POST. */
  close(): void;
  /**
   * The webhook receiver's URL the mock POSTs status changes to (normalised), or `undefined` when none is
   * set: the `webhookUrl` option, or the last {@link setWebhookUrl}.
   */
  readonly webhookUrl: string | undefined;
  /**
   * Sets (or, with `undefined`, removes) the webhook receiver's URL after the mock is created: for an app
   * under test whose port is known only once it listens, while the app's client needs the mock first.
   * Status changes made by {@link advance} from then on are POSTed there (those already under way keep
   * their URL), and {@link handlers} already in use let those POSTs through msw. Kept by {@link reset}
   * (configuration, not state). README "Testing your integration".
   * @param url an absolute http(s) URL, as the `webhookUrl` option takes, or `undefined`.
   * @throws {TypeError} naming `webhookUrl` for anything else; the previous URL is kept.
   */
  setWebhookUrl(url: string | undefined): void;
  /** Copies of every task, in creation order, in API response form. */
  readonly tasks: readonly Task[];
  /** A copy of one task in API response form, or `undefined` for an unknown id. */
  task(id: string): Task | undefined;
  /** The seller's account right now. */
  readonly wallet: MockWallet;
  /**
   * Every request that reached the handler since the last reset, in arrival order (copies): the most
   * recent `recordLimit` (default 10 000) of them, and at most 8 MiB of recorded text in all.
   */
  readonly requests: readonly MockRecordedRequest[];
  /** The recorded requests of one operation, in arrival order. */
  requestsFor(operation: MockOperation): readonly MockRecordedRequest[];
  /**
   * Every webhook POST made since the last reset, in the order they finished (copies): the most recent
   * `recordLimit` (default 10 000) of them.
   */
  readonly webhookDeliveries: readonly MockWebhookDelivery[];
  /**
   * Moves a task along its lifecycle (README "What the spec leaves open, and what we chose"):
   * `pending → requested → accepted → pickedup → enroute → delivered`, with the webhook-only events
   * `inprogress` and `pickup_location_reached` between `accepted` and `pickedup`; `cancelled` from
   * pending, requested or accepted; `rejected` from pending or requested; `failed` from enroute.
   *
   * Without `status`, one step along the happy path. With a `status` further along the happy path, every
   * step up to it. With `inprogress` or `pickup_location_reached` (from `accepted` only), that event and
   * the webhook-only events before it the task has not had yet; the status stays `accepted`, and a later
   * step to `pickedup` does not repeat them. Every change appends to `statusHistory` and updates `updatedAt`; `accepted` assigns a
   * driver and sets `deliveryDispatched`; `delivered` sets `completedTime`. With `webhookUrl`, each change
   * is POSTed in order; the promise resolves once those POSTs have finished, whatever their outcome.
   * @returns a copy of the task after the change.
   * @throws {Error} (as a rejected promise) for an unknown task id, a task in a final status, a status
   * not reachable from the current one, or a webhook-only event the task is not `accepted` for or has
   * already had; nothing changes then.
   */
  advance(taskId: string, status?: string): Promise<Task>;
  /**
   * Completes the payment of a top-up link from `POST tasks/wallet-topup`: credits its amount once.
   * @returns the new balance in KWD.
   * @throws {Error} for a link the mock did not issue (or issued before the last reset), an expired
   * link (24 h after issue, by the mock's clock), or a link already used.
   */
  completeTopUp(paymentUrl: string): number;
  /**
   * Adds a fault for the next `times` matching requests.
   * @throws {TypeError} / {RangeError} for a malformed rule (unknown kind or operation, `times` not a
   * positive integer or `Infinity`, a `status` outside 200…599, a negative `ms`, `repeat-page` for an
   * operation other than `tasks.list`).
   */
  inject(rule: MockFaultRule): void;
  /** Removes every fault rule not yet used up. */
  clearFaults(): void;
  /**
   * Back to the initial state: no tasks but the seed tasks (option `tasks`, as they were at the start,
   * same ids), the opening balance, no recorded requests, no faults, no
   * top-up links, no webhook deliveries; pending delays, stalled bodies and webhook POSTs are ended.
   * Ids keep counting, so an id from before the reset never names a new task.
   */
  reset(): void;
}
