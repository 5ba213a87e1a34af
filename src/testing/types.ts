/**
 * Public types of `delivery-task-sdk/testing` (README "Testing your integration"; docs/testing.md). @module
 */
import type { HttpHandler } from 'msw';
import type { OperationName } from '../core/operations.js';
import type { KwdAmount } from '../kwd.js';
import type { Task, TaskStatus } from '../schemas/task.js';
import type { TaskCreateParams } from '../schemas/task-create.js';
import type { MockDriftMutation } from './drift.js';

/** An operation of the table (`tasks.create`, …), named like its SDK method; docs/testing.md lists them. */
export type MockOperation = OperationName;

/**
 * `wallet`: prepaid, opening `balance` KWD (402 past it); `invoice`: fees to {@link MockWallet.invoicedFils}.
 */
export type MockAccount = { type: 'wallet'; balance: KwdAmount } | { type: 'invoice' };

/** Fee = `baseFee + perKm × totalDistance` (km), KWD, rounded half-up to the fils. */
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
 * A branch: a name (id `branch-<n>`), or an object kept as given; with coordinates and `address`, its tasks'
 * pickup.
 */
export type MockBranch = string | { name: string; id?: string; [field: string]: unknown };

/**
 * A task present from the start and after each `reset()`: a `POST tasks` body moved to `status`, no fee, no
 * webhooks.
 */
export type MockSeedTask = TaskCreateParams & {
  /** Non-empty, unique among the seed tasks. Default: a new mock id. */
  id?: string;
  /** Default `'pending'`. */
  status?: TaskStatus;
};

/** Options of `createMockDeliveryService`. Every option is optional; an unknown one is refused. */
export interface MockDeliveryServiceOptions {
  /** API key the mock accepts in `Authorization: apikey <apiKey>`. Default `'test-api-key'`. */
  apiKey?: string;
  /** Seller id the mock accepts in `x-seller-id`. Default `'test-seller'`. */
  sellerId?: string;
  /** Default `'https://delivery.test'`; the mock serves `<root>/tasks…` and `<root>/rest/tasks…`. */
  baseUrl?: string;
  /** The seller's account. Default `{ type: 'wallet', balance: 100 }` (100 KWD). */
  account?: MockAccount;
  /** Branches for `GET tasks/branches` and `selectedBranch`. Default `MOCK_DEFAULTS.branches` (3). */
  branches?: ReadonlyArray<MockBranch>;
  /** Fee schedule. Defaults: `baseFee` 0.750 KWD, `perKm` 0.100 KWD. */
  pricing?: MockPricing;
  /** The seller's default pickup point. Default Kuwait City (29.3759, 47.9774). */
  origin?: MockPoint;
  /**
   * Absolute http(s) URL {@link MockDeliveryService.advance} POSTs each change to (5 s timeout, no retry).
   * Default none.
   */
  webhookUrl?: string;
  /** HTTP status of a successful `POST tasks`. Default `200`. */
  createStatus?: 200 | 201;
  /** Clock of timestamps, ids and top-up expiry. Default `() => new Date()`. */
  now?: () => Date;
  /**
   * {@link MockSeedTask}s, oldest first, at most 10 000; a bad one throws `ConfigurationError` naming the
   * field (`Invalid tasks.2.status: …`). Default none.
   */
  tasks?: ReadonlyArray<MockSeedTask>;
  /**
   * Requests and webhook deliveries kept each, the oldest dropped first: a positive integer. Default
   * `10_000`.
   */
  recordLimit?: number;
  /** Tasks kept (≥ seed tasks); one more forgets the oldest (then 404). Default `50_000`. */
  taskLimit?: number;
}

/** Options of {@link MockDeliveryService.listen}. */
export interface MockListenOptions {
  /**
   * A request no handler of the mock answers. Default: one to the mock's own origin fails (a wrong path
   * never reaches a network), any other goes through (the app under test, a webhook receiver), with one
   * `console.warn` naming the first. `'error'`, `'warn'` or `'bypass'`: msw's strategy for every request
   * (docs/testing.md "Testing an app with the mock").
   */
  onUnhandledFrame?: 'error' | 'warn' | 'bypass';
}

/** The seller's account, read-only: KWD (numbers) and fils (integers); counts since the last reset. */
export interface MockWallet {
  readonly type: 'wallet' | 'invoice';
  /** KWD; 0 on an invoice account. */
  readonly balance: number;
  readonly balanceFils: number;
  readonly feesChargedFils: number;
  /** Fees deducted (a count); their sum is `feesChargedFils`. */
  readonly feesCharged: number;
  readonly invoicedFils: number;
  /** Tasks invoiced (a count); their fees' sum is `invoicedFils`. */
  readonly invoiced: number;
}

/** A status, a dropped connection, or no complete answer (yet). */
export type MockRecordedStatus = number | 'network-error' | 'stalled';

/** One request that reached the mock's handler, in arrival order. */
export interface MockRecordedRequest {
  /** `'unknown'`: no operation serves the path (404, 405). */
  readonly operation: MockOperation | 'unknown';
  readonly method: string;
  readonly url: string;
  /** Still percent-encoded. */
  readonly path: string;
  /** The first value of a repeated name. */
  readonly query: Readonly<Record<string, string>>;
  /** Lower-case names, unredacted; values cut to 256 characters without valid credentials. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * JSON, else text; over 16 KiB, 32 deep or unauthenticated, `{ truncated, bytes, prefix }`
   * (delivery-task-tools/docs/sandbox.md "Bounds").
   */
  readonly body: unknown;
  /** `'network-error'`: dropped; `'stalled'`: a `delay` running or cut short, or a `stall-body`. */
  readonly status: MockRecordedStatus;
  readonly fault?: MockFault['kind'];
}

/** One webhook POST made by {@link MockDeliveryService.advance}. */
export interface MockWebhookDelivery {
  readonly taskId: string;
  /** The body's `status`: a task status, `inprogress` or `pickup_location_reached`. */
  readonly status: string;
  readonly url: string;
  /** OpenAPI schema `WebhookTask`. */
  readonly body: Readonly<Record<string, unknown>>;
  /** Absent when no answer arrived. */
  readonly responseStatus?: number;
  /** Why none arrived: network error, 5 s timeout, reset or close. */
  readonly error?: string;
  /** Sending to the end of the answer or failure, ms. */
  readonly durationMs: number;
}

/** A fault the mock plays instead of or after processing: docs/testing.md's table of kinds. */
export type MockFault =
  | {
      kind: 'status';
      /** An integer 200…599. */
      status: number;
      /** JSON body. Default `{ message: '<reason> (injected fault)', code: '<CODE>' }`. */
      body?: unknown;
      headers?: Record<string, string>;
    }
  | { kind: 'network-error' }
  | { kind: 'commit-then-drop' }
  | {
      kind: 'delay';
      /** ms, ≥ 0; `Infinity` never answers. */
      ms: number;
    }
  | { kind: 'stall-body' }
  | { kind: 'invalid-json' }
  | { kind: 'repeat-page' }
  | {
      /**
       * `tasks.list` answers sorted this way whatever the request asked: a service that ignores or changes
       * the sort.
       */
      kind: 'sort';
      /**
       * A field of `SORT_FIELDS`, or `''` for the mock's own order (newest created first). Default
       * `'createdAt'`.
       */
      sortBy?: string;
      /** `1` ascending, `-1` descending. Default `1`, the documented default of `sortOrder`. */
      sortOrder?: 1 | -1;
    }
  | {
      kind: 'drift';
      /** Default: every {@link MockDriftMutation} but `times-without-zone`. */
      mutations?: readonly MockDriftMutation[];
    };

/** A fault for the next `times` matching requests; the first rule injected that matches is used. */
export type MockFaultRule = MockFault & {
  /** Default: every operation (`repeat-page`, `sort`: `tasks.list` only). */
  operation?: MockOperation | readonly MockOperation[];
  /** A positive integer or `Infinity`. Default 1. */
  times?: number;
};

/** The mock returned by `createMockDeliveryService`. */
export interface MockDeliveryService {
  /** Without a trailing slash. */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly sellerId: string;
  /** msw handlers (the service, a passthrough for the webhook receiver): `setupServer(...mock.handlers)`. */
  readonly handlers: readonly HttpHandler[];
  /**
   * Starts msw's `setupServer` with {@link handlers}. @throws {Error} when listening, and on Bun and Deno.
   */
  listen(options?: MockListenOptions): void;
  /** Stops {@link listen}'s server; ends pending delays, stalled bodies and webhook POSTs. */
  close(): void;
  /** The webhook receiver's URL (normalised), or `undefined`. */
  readonly webhookUrl: string | undefined;
  /**
   * Sets (or removes) the receiver's URL; {@link reset} keeps it. @throws {TypeError} for a non-http(s) URL.
   */
  setWebhookUrl(url: string | undefined): void;
  /** Copies, in creation order. */
  readonly tasks: readonly Task[];
  task(id: string): Task | undefined;
  readonly wallet: MockWallet;
  /** Since the last reset, arrival order (copies): the last `recordLimit`, ≤ 8 MiB of text. */
  readonly requests: readonly MockRecordedRequest[];
  requestsFor(operation: MockOperation): readonly MockRecordedRequest[];
  /** Since the last reset, in order of finishing (copies): the last `recordLimit`. */
  readonly webhookDeliveries: readonly MockWebhookDelivery[];
  /**
   * Moves a task one step, or to `status`, POSTing each change. @throws {Error} (rejects) for a step not
   * allowed.
   */
  advance(taskId: string, status?: string): Promise<Task>;
  /**
   * Pays a top-up link once; returns the balance, KWD. @throws {Error} for a link unknown, expired (24 h) or
   * used;
   * `RangeError` when the balance plus its amount would pass `MAX_KWD_AMOUNT` (nothing credited).
   */
  completeTopUp(paymentUrl: string): number;
  /** @throws {TypeError} / {RangeError} for a malformed rule (as `checkFaultRule`). */
  inject(rule: MockFaultRule): void;
  clearFaults(): void;
  /**
   * Back to the seed tasks and opening balance; records, faults, links and pending work cleared; ids keep
   * counting.
   */
  reset(): void;
}
