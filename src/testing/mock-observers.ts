/**
 * What delivery-task-tools' sandbox reads of a mock beyond `MockDeliveryService`
 * (delivery-task-tools/docs/sandbox.md). @module
 */

import { FaultQueue } from './faults.js';
import type { RequestLogPage, RequestPage } from './request-log.js';
import { type TaskRecord, TaskStore } from './state.js';
import type { MockFault, MockFaultRule, MockOperation, MockWebhookDelivery } from './types.js';
import { Account, MAX_TOP_UP_LINKS, type TopUpLink } from './wallet.js';
import type { WebhookDeliveryPage } from './webhook-delivery.js';

/**
 * The key under which a mock made by `createMockDeliveryService` carries its {@link MockObservers}:
 * registered, so `observersOf` of every copy of the SDK (its ESM and CommonJS builds) reads it.
 */
export const MOCK_OBSERVERS: unique symbol = Symbol.for('delivery-task-sdk.mock-observers');

/** One change of the mock's state, as the sandbox's event stream reports it. */
export type MockChange =
  | { readonly kind: 'task'; readonly taskId: string }
  | { readonly kind: 'webhook'; readonly delivery: NumberedWebhookDelivery }
  | { readonly kind: 'wallet' }
  | { readonly kind: 'faults' }
  | { readonly kind: 'reset' };

/** A webhook delivery with its number: 1, 2, 3… in the order they finished, never reused after a reset. */
export type NumberedWebhookDelivery = MockWebhookDelivery & {
  readonly seq: number;
  /** Set on a delivery made by "send again": the number of the delivery it repeats. */
  readonly resentFrom?: number;
};

/** A top-up link the mock issued, and what became of it (times ISO 8601). */
export interface IssuedTopUp {
  readonly paymentUrl: string;
  readonly amountFils: number;
  readonly issuedAt: string;
  readonly expiresAt: string;
  /** Absent while unpaid. */
  readonly paidAt?: string;
}

/** A fault rule not yet used up, in injection order. */
export interface ActiveFaultRule {
  /** The rule as injected (`times` is what it had then). */
  readonly rule: MockFaultRule;
  /** Matching requests that will still get the fault (`Infinity` for a rule without end). */
  readonly remaining: number;
}

/**
 * What a sandbox reads and does beyond `MockDeliveryService` (delivery-task-tools/docs/sandbox.md), bounded
 * as the mock is.
 */
export interface MockObservers {
  /** Calls `listener` after every change, synchronously; returns the function that stops it. */
  subscribe(listener: (change: MockChange) => void): () => void;
  /** The stored record of a task (the mock's own object: read it, never change it). */
  record(taskId: string): TaskRecord | undefined;
  /** The newest `limit` task records, newest first, and how many there are. */
  newestRecords(limit: number): { readonly records: readonly TaskRecord[]; readonly total: number };
  /** Top-up links issued since the last reset, oldest first (at most `MAX_TOP_UP_LINKS`). */
  topUps(): readonly IssuedTopUp[];
  /** Fault rules not yet used up, in the order they are matched. */
  faultRules(): readonly ActiveFaultRule[];
  /** Removes the fault rule at `index` of {@link faultRules}; false when there is none. */
  removeFaultRule(index: number): boolean;
  /** Copies of the newest `limit` recorded requests numbered below `before`, oldest first. */
  requestPage(limit: number, before?: number): RequestPage;
  /** The same page with each body as held (JSON text, text or a summary), for writing out without parsing. */
  requestLogPage(limit: number, before?: number): RequestLogPage;
  /**
   * The last distinct credentials requests sent (at most 16, 8 to 1024 characters), for redaction of every
   * page.
   */
  requestCredentials(): readonly string[];
  /** Webhook deliveries kept (the mock's `recordLimit`, at most 8 MiB held), in the order they finished. */
  webhookDeliveries(): readonly NumberedWebhookDelivery[];
  /** The newest `limit` deliveries numbered below `before`, oldest first, each body as its JSON text. */
  webhookPage(limit: number, before?: number): WebhookDeliveryPage;
  /** POSTs delivery `seq` again and records it; `undefined` when no delivery `seq` is kept. */
  resendWebhook(seq: number): Promise<NumberedWebhookDelivery | undefined>;
}

/** The {@link MockObservers} of a mock made by `createMockDeliveryService`, else `undefined`. */
export function observersOf(mock: object): MockObservers | undefined {
  return (mock as { [MOCK_OBSERVERS]?: MockObservers })[MOCK_OBSERVERS];
}

export class ChangeFeed {
  readonly #listeners = new Set<(change: MockChange) => void>();

  subscribe(listener: (change: MockChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells every listener; a listener that throws does not stop the others nor the mock. */
  emit(change: MockChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch {
        // Its failure is its own.
      }
    }
  }
}

export class ObservedTaskStore extends TaskStore {
  readonly #feed: ChangeFeed;

  constructor(limit: number, feed: ChangeFeed) {
    super(limit);
    this.#feed = feed;
  }

  override add(record: TaskRecord): void {
    super.add(record);
    if (record.task.id !== undefined) this.#feed.emit({ kind: 'task', taskId: record.task.id });
  }

  /** The newest `limit` records, newest first. */
  newest(limit: number): { records: TaskRecord[]; total: number } {
    const all = this.all();
    return { records: all.slice(Math.max(0, all.length - limit)).reverse(), total: all.length };
  }
}

/** The mock's account, keeping the list of issued top-up links and reporting each change of money. */
export class ObservedAccount extends Account {
  readonly #feed: ChangeFeed;
  readonly #topUps = new Map<string, IssuedTopUp>();

  constructor(type: 'wallet' | 'invoice', openingBalanceFils: number, feed: ChangeFeed) {
    super(type, openingBalanceFils);
    this.#feed = feed;
  }

  override charge(feeFils: number): boolean {
    const deducted = super.charge(feeFils);
    this.#feed.emit({ kind: 'wallet' });
    return deducted;
  }

  override issueTopUp(paymentUrl: string, amountFils: number, issuedAt: Date): TopUpLink {
    const link = super.issueTopUp(paymentUrl, amountFils, issuedAt);
    this.#topUps.delete(paymentUrl);
    this.#topUps.set(paymentUrl, {
      paymentUrl,
      amountFils,
      issuedAt: issuedAt.toISOString(),
      expiresAt: link.expiresAt.toISOString(),
    });
    if (this.#topUps.size > MAX_TOP_UP_LINKS) {
      const oldest = this.#topUps.keys().next();
      if (!oldest.done) this.#topUps.delete(oldest.value);
    }
    this.#feed.emit({ kind: 'wallet' });
    return link;
  }

  override completeTopUp(paymentUrl: string, at: Date): number {
    const balanceFils = super.completeTopUp(paymentUrl, at);
    const issued = this.#topUps.get(paymentUrl);
    if (issued) this.#topUps.set(paymentUrl, { ...issued, paidAt: at.toISOString() });
    this.#feed.emit({ kind: 'wallet' });
    return balanceFils;
  }

  override reset(): void {
    super.reset();
    this.#topUps.clear();
  }

  /** Issued links, oldest first. */
  topUps(): IssuedTopUp[] {
    return [...this.#topUps.values()];
  }
}

/** True when a rule applies to `operation`: the matching rule of `FaultQueue.take`. */
function ruleMatches(rule: MockFaultRule, operation: MockOperation): boolean {
  const operations = rule.operation === undefined ? undefined : [rule.operation].flat();
  return (
    (operations === undefined || operations.includes(operation)) &&
    ((rule.kind !== 'repeat-page' && rule.kind !== 'sort') || operation === 'tasks.list')
  );
}

/** The mock's fault queue, also listing its rules with their remaining counts and reporting each change. */
export class ObservedFaultQueue extends FaultQueue {
  readonly #feed: ChangeFeed;
  #rules: { rule: MockFaultRule; remaining: number }[] = [];

  constructor(feed: ChangeFeed) {
    super();
    this.#feed = feed;
  }

  override inject(rule: MockFaultRule): void {
    super.inject(rule);
    this.#rules.push({ rule: structuredClone(rule), remaining: rule.times ?? 1 });
    this.#feed.emit({ kind: 'faults' });
  }

  override clear(): void {
    super.clear();
    const had = this.#rules.length > 0;
    this.#rules = [];
    if (had) this.#feed.emit({ kind: 'faults' });
  }

  override take(operation: MockOperation): MockFault | undefined {
    const fault = super.take(operation);
    if (fault === undefined) return undefined;
    const index = this.#rules.findIndex((entry) => ruleMatches(entry.rule, operation));
    const entry = this.#rules[index];
    if (entry) {
      entry.remaining -= 1;
      if (entry.remaining <= 0) this.#rules.splice(index, 1);
      this.#feed.emit({ kind: 'faults' });
    }
    return fault;
  }

  rules(): ActiveFaultRule[] {
    return this.#rules.map(({ rule, remaining }) => ({ rule: structuredClone(rule), remaining }));
  }

  /** Removes the rule at `index`: the queue is rebuilt from the others, each with its remaining count. */
  remove(index: number): boolean {
    if (!Number.isSafeInteger(index) || index < 0 || index >= this.#rules.length) return false;
    const kept = this.#rules.filter((_entry, position) => position !== index);
    super.clear();
    this.#rules = [];
    for (const { rule, remaining } of kept) {
      super.inject({ ...rule, times: remaining });
      this.#rules.push({ rule, remaining });
    }
    this.#feed.emit({ kind: 'faults' });
    return true;
  }
}
