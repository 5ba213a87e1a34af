/**
 * A create whose outcome was unknown is never sent again blindly (README "Exactly-once creation"):
 * the order's record keeps when sending began, so the next create of the order, from the same client
 * or another one sharing the store, looks it up first. And a holder whose lease expired cannot write
 * the order's record afterwards (src/creation/order-lease.ts, fenced leases).
 */
import { describe, expect, it, vi } from 'vitest';
import { storeKey } from '../../../src/core/store.js';
import { type DeliveryStore, memoryStore, TaskCreationOutcomeUnknownError } from '../../../src/index.js';
import { aged } from '../../support/aged-store.js';
import { orderParams, useMockService } from '../../support/mock-service.js';

const { mock, client } = useMockService({ account: { type: 'wallet', balance: 5000 } });
const scope = { baseUrl: mock.baseUrl, sellerId: mock.sellerId };
const tasksFor = (orderNumber: string) => mock.tasks.filter((task) => task.orderNumber === orderNumber);

describe('a create whose outcome was unknown', () => {
  it('is looked up, not sent again, after the caller aborted during reconciliation (same client)', async () => {
    const sdk = client({ reconciliation: { checks: 3, intervalMs: 200 } });
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop' });
    mock.inject({ operation: 'tasks.list', kind: 'delay', ms: 300, times: Number.POSITIVE_INFINITY });
    const controller = new AbortController();
    // The abort during reconciliation is the subject: no lookup before the POST (the abort would come during it).
    const first = sdk.tasks.create(orderParams('UNKNOWN-1'), {
      signal: controller.signal,
      lookupFirst: false,
    });
    setTimeout(() => controller.abort(), 150);
    await expect(first).rejects.toBeInstanceOf(TaskCreationOutcomeUnknownError);
    mock.clearFaults();
    const posts = mock.requestsFor('tasks.create').length;
    const again = await sdk.tasks.create(orderParams('UNKNOWN-1'));
    expect(mock.requestsFor('tasks.create')).toHaveLength(posts);
    expect(posts).toBe(1);
    expect(tasksFor('UNKNOWN-1')).toHaveLength(1);
    expect(again.id).toBe(tasksFor('UNKNOWN-1')[0]?.id);
  });

  it('is looked up by another client sharing the store after the lookup itself failed', async () => {
    // A store in use for a while: creates no longer look up first (FRESH_STORE_MS).
    const store = await aged(memoryStore(), scope);
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop' });
    mock.inject({ operation: 'tasks.list', kind: 'status', status: 400, times: Number.POSITIVE_INFINITY });
    await expect(client({ store }).tasks.create(orderParams('UNKNOWN-2'))).rejects.toBeInstanceOf(
      TaskCreationOutcomeUnknownError,
    );
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    mock.clearFaults();
    const posts = mock.requestsFor('tasks.create').length;
    const again = await client({ store }).tasks.create(orderParams('UNKNOWN-2'));
    expect(mock.requestsFor('tasks.create')).toHaveLength(posts);
    expect(tasksFor('UNKNOWN-2')).toHaveLength(1);
    expect(again.id).toBe(tasksFor('UNKNOWN-2')[0]?.id);
  });
});

describe('fenced leases', () => {
  const orderKey = (orderNumber: string) => storeKey(scope, 'order', orderNumber);
  /** Ends the lease held in the order's record, as time passing without a renewal would (its store stalled). */
  const endLease = async (store: DeliveryStore, orderNumber: string) => {
    const raw = await store.get(orderKey(orderNumber));
    const record = JSON.parse(raw ?? '{}');
    expect(record).toMatchObject({ state: 'sending', holder: expect.any(String) });
    const ended = JSON.stringify({ ...record, leaseUntil: Date.now() - 1 });
    expect(await store.compareAndSet(orderKey(orderNumber), raw, ended, 60_000)).toBe(true);
  };
  const agedStore = () => aged(memoryStore(), scope);

  it('makes one task when the lease expires while its holder POST is still on its way to the service', async () => {
    const store = await agedStore();
    let posting: () => void = () => {};
    const postStarted = new Promise<void>((resolve) => {
      posting = resolve;
    });
    // The holder's POST reaches the service late (a slow network): the service commits it 800 ms on.
    const slowFetch: typeof fetch = async (input, init) => {
      const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
      if (method === 'POST') {
        posting();
        await new Promise((resolve) => setTimeout(resolve, 800));
      }
      return fetch(input, init);
    };
    const holder = client({ store, fetch: slowFetch, timeout: 2000 });
    // Another process: a second copy of the SDK's modules, so no in-process flight is shared.
    vi.resetModules();
    const other = await import('../../../src/index.js');
    const next = new other.DeliveryClient({
      apiKey: mock.apiKey,
      sellerId: mock.sellerId,
      baseUrl: mock.baseUrl,
      logLevel: 'off',
      store,
      reconciliation: { checks: 2, intervalMs: 5 },
    });
    const first = holder.tasks.create(orderParams('FENCE-1'));
    await postStarted;
    // The holder's lease expires (its store stalled): another process takes the order over.
    await endLease(store, 'FENCE-1');
    const second = next.tasks.create(orderParams('FENCE-1'));
    const [a, b] = await Promise.all([first, second]);
    expect(tasksFor('FENCE-1')).toHaveLength(1);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(a.id).toBe(b.id);
    // The late holder did not overwrite the record of the process that took over: a third create reads it.
    const third = await client({ store }).tasks.create(orderParams('FENCE-1'));
    expect(third.id).toBe(a.id);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
  });

  it('gives every grant of an order a larger fence than the one before', async () => {
    const store = await agedStore();
    for (const round of [1, 2, 3]) {
      await client({ store, orderTtlMs: 1000 }).tasks.create(orderParams(`FENCE-2-${round}`), {
        repeatDelivery: true,
      });
    }
    const sdk = client({ store });
    const fences: unknown[] = [];
    for (const repeatDelivery of [false, true, true]) {
      await sdk.tasks.create(orderParams('FENCE-2'), { repeatDelivery });
      const record = JSON.parse((await store.get(orderKey('FENCE-2'))) ?? '{}');
      expect(record).toMatchObject({ state: 'created' });
      fences.push(record.fence);
    }
    expect(fences).toEqual([1, 2, 3]);
  });
});
