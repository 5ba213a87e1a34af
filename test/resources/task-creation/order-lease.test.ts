/**
 * One create per order across processes (src/creation/order-lease.ts), in one process: "another process" is
 * played by writing its record (which holds its lease) into the shared store the way the SDK does.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { storeKey } from '../../../src/core/store.js';
import {
  type DeliveryStore,
  InsufficientBalanceError,
  memoryStore,
  StoreUnavailableError,
  TaskCreationOutcomeUnknownError,
} from '../../../src/index.js';
import { LEASE_TTL_MS } from '../../../src/resources/task-creation/lease-terms.js';
import { aged } from '../../support/aged-store.js';
import { orderParams, useMockService } from '../../support/mock-service.js';

const { mock, client } = useMockService({ account: { type: 'wallet', balance: 5000 } });
const scope = { baseUrl: mock.baseUrl, sellerId: mock.sellerId };
const tasksFor = (orderNumber: string) => mock.tasks.filter((task) => task.orderNumber === orderNumber);
const orderKey = (orderNumber: string) => storeKey(scope, 'order', orderNumber);

/**
 * Plays another process that took `orderNumber` and is sending it: its `sending` record, holding the lease
 * for `leaseMs`. Returns the record as written, for writing that process's outcome over it.
 */
async function anotherProcessHolds(
  store: DeliveryStore,
  orderNumber: string,
  leaseMs = 10_000,
): Promise<string> {
  const now = Date.now();
  const record = JSON.stringify({
    state: 'sending',
    since: now,
    fence: 1,
    until: now + 1000,
    holder: 'other-process',
    leaseUntil: now + leaseMs,
  });
  expect(await store.setIfAbsent(orderKey(orderNumber), record, 60_000)).toBe(true);
  return record;
}

describe('the remembered order', () => {
  it('returns the task of a recent order without a second POST', async () => {
    const sdk = client({ store: memoryStore() });
    const first = await sdk.tasks.create(orderParams('MEM-1'));
    const again = await sdk.tasks.create(orderParams('MEM-1'));
    expect(again.id).toBe(first.id);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(mock.wallet.feesCharged).toBe(1);
  });

  it('is shared by every client of the store, as by processes sharing Redis', async () => {
    const store = memoryStore();
    const first = await client({ store }).tasks.create(orderParams('MEM-2'));
    expect((await client({ store }).tasks.create(orderParams('MEM-2'))).id).toBe(first.id);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
  });

  it('sends a deliberate second delivery with repeatDelivery', async () => {
    const sdk = client({ store: memoryStore() });
    const first = await sdk.tasks.create(orderParams('MEM-3'));
    const second = await sdk.tasks.create(orderParams('MEM-3'), { repeatDelivery: true });
    expect(second.id).not.toBe(first.id);
    expect(tasksFor('MEM-3')).toHaveLength(2);
  });

  it("keeps the order's task remembered as long as a created record after a repeat delivery failed before sending", async () => {
    const inner = memoryStore();
    const ttls: number[] = [];
    const store: DeliveryStore = {
      get: (key) => inner.get(key),
      setIfAbsent: (key, value, ttlMs) => inner.setIfAbsent(key, value, ttlMs),
      delete: (key, expected) => inner.delete(key, expected),
      compareAndSet: (key, expected, value, ttlMs) => {
        if (key === orderKey('MEM-8') && value.includes('"state":"failed"')) ttls.push(ttlMs);
        return inner.compareAndSet(key, expected, value, ttlMs);
      },
    };
    const sdk = client({ store, orderTtlMs: 3_600_000 });
    const first = await sdk.tasks.create(orderParams('MEM-8'));
    // The repeat delivery's lookup fails: nothing is sent, and its failure is recorded over the order's.
    mock.inject({ operation: 'tasks.list', kind: 'network-error', times: 3 });
    await expect(sdk.tasks.create(orderParams('MEM-8'), { repeatDelivery: true })).rejects.toThrow();
    // The failed record still names the first task: it must outlive the 60 s of a failure that knows nothing.
    expect(ttls).toEqual([3_600_000]);
    expect((await sdk.tasks.create(orderParams('MEM-8'))).id).toBe(first.id);
    expect(tasksFor('MEM-8')).toHaveLength(1);
  });

  it("sends a repeat delivery that waited behind a first delivery's DuplicateTaskError (not that error)", async () => {
    // The order already has two deliveries: a first delivery of it fails with DuplicateTaskError, which
    // says nothing of a repeat delivery waiting for the lease meanwhile.
    const sdk = client({ store: memoryStore() });
    await sdk.tasks.create(orderParams('MEM-6'));
    await client({ store: memoryStore() }).tasks.create(orderParams('MEM-6'), { repeatDelivery: true });
    const store = memoryStore();
    const twin = client({ store });
    mock.inject({ operation: 'tasks.list', kind: 'delay', ms: 100 });
    const [first, repeat] = await Promise.allSettled([
      twin.tasks.create(orderParams('MEM-6')),
      twin.tasks.create(orderParams('MEM-6'), { repeatDelivery: true }),
    ]);
    expect(first.status === 'rejected' && first.reason).toMatchObject({ name: 'DuplicateTaskError' });
    if (repeat.status === 'rejected') throw repeat.reason;
    expect(repeat.value.orderNumber).toBe('MEM-6');
    expect(tasksFor('MEM-6')).toHaveLength(3);
  });

  it("takes a first delivery's unknown outcome as an earlier delivery's, and sends the repeat delivery", async () => {
    const store = memoryStore();
    const first = await client({ store: memoryStore() }).tasks.create(orderParams('MEM-7'));
    // The first delivery's process ended not knowing whether its POST made the task (it did).
    const now = Date.now();
    const failure = { name: 'TaskCreationOutcomeUnknownError', message: 'outcome unknown' };
    const failed = { state: 'failed', at: now, failure, since: now - 1000, decidableAt: now + 200, fence: 1 };
    expect(await store.setIfAbsent(orderKey('MEM-7'), JSON.stringify(failed), 60_000)).toBe(true);
    const repeat = await client({ store }).tasks.create(orderParams('MEM-7'), { repeatDelivery: true });
    expect(Date.now()).toBeGreaterThanOrEqual(now + 200);
    expect(repeat.id).not.toBe(first.id);
    expect(tasksFor('MEM-7').map((task) => task.id)).toEqual(expect.arrayContaining([first.id, repeat.id]));
    expect(tasksFor('MEM-7')).toHaveLength(2);
  });

  it("still refuses to guess after a repeat delivery's own unknown outcome", async () => {
    const store = memoryStore();
    await client({ store: memoryStore() }).tasks.create(orderParams('MEM-8'));
    const now = Date.now();
    const failure = { name: 'TaskCreationOutcomeUnknownError', message: 'outcome unknown' };
    const failed = {
      state: 'failed',
      at: now,
      failure,
      since: now - 1000,
      decidableAt: now,
      fence: 1,
      repeat: true,
    };
    expect(await store.setIfAbsent(orderKey('MEM-8'), JSON.stringify(failed), 60_000)).toBe(true);
    await expect(
      client({ store }).tasks.create(orderParams('MEM-8'), { repeatDelivery: true }),
    ).rejects.toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect(tasksFor('MEM-8')).toHaveLength(1);
  });

  it('leaves out the earlier delivery its record remembers, though the service does not list it yet', async () => {
    const sdk = client();
    const first = await sdk.tasks.create(orderParams('MEM-9'));
    // The service lists the first delivery only later; the repeat delivery's POST is stored, its answer lost.
    const empty = { tasks: [], page: 1, limit: 10, totalPages: 0, total: 0 };
    mock.inject({ operation: 'tasks.list', kind: 'status', status: 200, body: empty });
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop' });
    const repeat = await sdk.tasks.create(orderParams('MEM-9'), { repeatDelivery: true });
    expect(repeat.id).not.toBe(first.id);
    expect(
      tasksFor('MEM-9')
        .map((task) => task.id)
        .sort(),
    ).toEqual([first.id, repeat.id].sort());
  });

  it("keeps the order's task known through a repeat delivery's failure", async () => {
    // A store in use for long (its records began 10 min ago): a first delivery trusts its record.
    const store = await aged(memoryStore(), scope);
    const sdk = client({ store, maxRetries: 0 });
    const first = await sdk.tasks.create(orderParams('MEM-10'));
    mock.inject({ operation: 'tasks.list', kind: 'network-error' });
    await expect(sdk.tasks.create(orderParams('MEM-10'), { repeatDelivery: true })).rejects.toMatchObject({
      name: 'APIConnectionError',
    });
    expect((await sdk.tasks.create(orderParams('MEM-10'))).id).toBe(first.id);
    expect(tasksFor('MEM-10')).toHaveLength(1);
  });

  it('forgets the order after orderTtlMs', async () => {
    let now = Date.now();
    // A store in use for long (its records began 10 min ago), so nothing is looked up before sending.
    const store = await aged(memoryStore({ now: () => now }), scope);
    const sdk = client({ store, orderTtlMs: 60_000 });
    await sdk.tasks.create(orderParams('MEM-4'));
    now += 61_000;
    await sdk.tasks.create(orderParams('MEM-4'));
    expect(mock.requestsFor('tasks.create')).toHaveLength(2);
  });

  it('lets a later create send again after a rejection (nothing was created)', async () => {
    const sdk = client({ store: memoryStore() });
    mock.inject({
      operation: 'tasks.create',
      kind: 'status',
      status: 402,
      body: { code: 'INSUFFICIENT_BALANCE' },
    });
    await expect(sdk.tasks.create(orderParams('MEM-5'))).rejects.toBeInstanceOf(InsufficientBalanceError);
    expect((await sdk.tasks.create(orderParams('MEM-5'))).orderNumber).toBe('MEM-5');
    expect(mock.requestsFor('tasks.create')).toHaveLength(2);
  });
});

describe('the lease', () => {
  it('waits for the process holding the lease and returns its task, without a POST', async () => {
    const store = memoryStore();
    const task = await client({ store: memoryStore() }).tasks.create(orderParams('LEASE-1'));
    const lookups = mock.requestsFor('tasks.list').length;
    const sending = await anotherProcessHolds(store, 'LEASE-1');
    const waiting = client({ store }).tasks.create(orderParams('LEASE-1'));
    setTimeout(() => {
      const created = JSON.stringify({ state: 'created', taskId: task.id, fence: 1 });
      void store.compareAndSet(orderKey('LEASE-1'), sending, created, 60_000);
    }, 100);
    expect((await waiting).id).toBe(task.id);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    // It waited for the holder's outcome rather than looking the order up.
    expect(mock.requestsFor('tasks.list')).toHaveLength(lookups);
  });

  it('gives the waiting process the same typed error the holder ended with', async () => {
    const store = memoryStore();
    const sending = await anotherProcessHolds(store, 'LEASE-2');
    const waiting = client({ store })
      .tasks.create(orderParams('LEASE-2'))
      .catch((caught: unknown) => caught);
    setTimeout(() => {
      const failure = {
        name: 'InsufficientBalanceError',
        message: 'low',
        status: 402,
        body: { code: 'INSUFFICIENT_BALANCE' },
      };
      const failed = JSON.stringify({ state: 'failed', at: Date.now(), failure, fence: 1 });
      void store.compareAndSet(orderKey('LEASE-2'), sending, failed, 60_000);
    }, 50);
    expect(await waiting).toBeInstanceOf(InsufficientBalanceError);
    expect(mock.requestsFor('tasks.create')).toHaveLength(0);
  });

  it('stops waiting at its own deadline with TaskCreationOutcomeUnknownError, having sent nothing', async () => {
    const store = memoryStore();
    await anotherProcessHolds(store, 'LEASE-3', 60_000);
    const error = await client({ store })
      .tasks.create(orderParams('LEASE-3'), { totalTimeout: 200 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect(mock.requestsFor('tasks.create')).toHaveLength(0);
  });

  it('takes over from a holder that died: looks the order up first and returns the task it created', async () => {
    const store = memoryStore();
    // The dead process had sent (the task exists), recorded "sending", and its lease has expired.
    const created = await client({ store: memoryStore() }).tasks.create(orderParams('LEASE-4'));
    await store.setIfAbsent(
      orderKey('LEASE-4'),
      JSON.stringify({ state: 'sending', since: Date.now() - 1000 }),
      60_000,
    );
    const task = await client({ store }).tasks.create(orderParams('LEASE-4'));
    expect(task.id).toBe(created.id);
    expect(tasksFor('LEASE-4')).toHaveLength(1);
    expect(mock.requestsFor('tasks.list').length).toBeGreaterThan(0);
  });

  it('takes over from a holder that died before sending: looks first, then sends once', async () => {
    const store = memoryStore();
    await store.setIfAbsent(
      orderKey('LEASE-5'),
      JSON.stringify({ state: 'sending', since: Date.now() - 1000 }),
      60_000,
    );
    const task = await client({ store }).tasks.create(orderParams('LEASE-5'));
    expect(task.orderNumber).toBe('LEASE-5');
    expect(tasksFor('LEASE-5')).toHaveLength(1);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    const operations = mock.requests.map((request) => request.operation);
    expect(operations.indexOf('tasks.list')).toBeGreaterThanOrEqual(0);
    expect(operations.indexOf('tasks.list')).toBeLessThan(operations.indexOf('tasks.create'));
  });
});

describe('the lease in the order record', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A fetch whose POSTs wait for `answer()`; `posting` resolves when the first one arrives. */
  const heldPost = () => {
    let arrived: () => void = () => {};
    const posting = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let answer: () => void = () => {};
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const slowFetch: typeof fetch = async (input, init) => {
      if ((init?.method ?? (input instanceof Request ? input.method : 'GET')) === 'POST') {
        arrived();
        await answered;
      }
      return fetch(input, init);
    };
    return { slowFetch, posting, answer };
  };

  const aged = async () => {
    const store = memoryStore();
    await store.setIfAbsent(storeKey(scope, 'epoch'), String(Date.now() - 600_000), 86_400_000);
    return store;
  };
  const recordOf = async (store: DeliveryStore, orderNumber: string) =>
    JSON.parse((await store.get(orderKey(orderNumber))) ?? '{}');

  it("takes over a record whose holder's lease has ended: looks first, and returns the task it made", async () => {
    const store = await aged();
    const created = await client({ store: memoryStore() }).tasks.create(orderParams('ENDED-1'));
    const now = Date.now();
    const ended = { state: 'sending', since: now - 20_000, fence: 4, until: now - 9_000, holder: 'dead' };
    await store.setIfAbsent(orderKey('ENDED-1'), JSON.stringify({ ...ended, leaseUntil: now - 1 }), 60_000);
    const lookups = mock.requestsFor('tasks.list').length;
    const task = await client({ store }).tasks.create(orderParams('ENDED-1'));
    expect(task.id).toBe(created.id);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(mock.requestsFor('tasks.list').length).toBeGreaterThan(lookups);
    expect(await recordOf(store, 'ENDED-1')).toEqual({ state: 'created', taskId: created.id, fence: 5 });
  });

  it('renews its lease while its POST is on its way, and still records its outcome', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const store = await aged();
    const { slowFetch, posting, answer } = heldPost();
    const creating = client({ store, fetch: slowFetch }).tasks.create(orderParams('RENEW-1'));
    await posting;
    const taken = await recordOf(store, 'RENEW-1');
    expect(taken).toMatchObject({ state: 'sending', holder: expect.any(String) });
    await new Promise((resolve) => setTimeout(resolve, 5)); // a later millisecond for the renewed lease
    vi.advanceTimersByTime(LEASE_TTL_MS / 3);
    await vi.waitFor(async () =>
      expect((await recordOf(store, 'RENEW-1')).leaseUntil).toBeGreaterThan(taken.leaseUntil),
    );
    const renewed = await recordOf(store, 'RENEW-1');
    expect(renewed).toEqual({ ...taken, leaseUntil: renewed.leaseUntil });
    answer();
    const task = await creating;
    expect(await recordOf(store, 'RENEW-1')).toEqual({ state: 'created', taskId: task.id, fence: 1 });
  });

  it('records its outcome after a renewal whose answer was lost (written, then the store timed out)', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const inner = await aged();
    let loseNextAnswer = false;
    const store: DeliveryStore = {
      ...inner,
      compareAndSet: async (key, expected, value, ttlMs) => {
        const replaced = await inner.compareAndSet(key, expected, value, ttlMs);
        if (loseNextAnswer) {
          loseNextAnswer = false;
          throw new Error('timeout');
        }
        return replaced;
      },
    };
    const { slowFetch, posting, answer } = heldPost();
    const creating = client({ store, fetch: slowFetch }).tasks.create(orderParams('RENEW-2'));
    await posting;
    const taken = await recordOf(inner, 'RENEW-2');
    loseNextAnswer = true;
    await new Promise((resolve) => setTimeout(resolve, 5)); // a later millisecond for the renewed lease
    vi.advanceTimersByTime(LEASE_TTL_MS / 3);
    await vi.waitFor(() => expect(loseNextAnswer).toBe(false));
    expect((await recordOf(inner, 'RENEW-2')).leaseUntil).toBeGreaterThan(taken.leaseUntil);
    answer();
    const task = await creating;
    expect(await recordOf(inner, 'RENEW-2')).toEqual({ state: 'created', taskId: task.id, fence: 1 });
  });

  it('lets the order go when it fails reading the epoch after taking it: nothing sent, the next create goes ahead', async () => {
    const inner = memoryStore();
    let failEpoch = true;
    const store: DeliveryStore = {
      ...inner,
      get: (key) => {
        if (failEpoch && key === storeKey(scope, 'epoch')) {
          failEpoch = false;
          return Promise.reject(new Error('connection lost'));
        }
        return inner.get(key);
      },
    };
    const error = await client({ store })
      .tasks.create(orderParams('EPOCH-DOWN'))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(mock.requestsFor('tasks.create')).toHaveLength(0);
    expect(await inner.get(orderKey('EPOCH-DOWN'))).toBeUndefined();
    const task = await client({ store, totalTimeout: 2000 }).tasks.create(orderParams('EPOCH-DOWN'));
    expect(task.orderNumber).toBe('EPOCH-DOWN');
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
  });

  it("keeps a dead holder's in-flight time for the next holder when it lets the order go at its own deadline", async () => {
    const store = await aged();
    const now = Date.now();
    const dead = {
      state: 'sending',
      since: now - 500,
      fence: 2,
      until: now + 1500,
      holder: 'dead',
      leaseUntil: now - 1,
    };
    await store.setIfAbsent(orderKey('INFLIGHT-1'), JSON.stringify(dead), 60_000);
    const error = await client({ store })
      .tasks.create(orderParams('INFLIGHT-1'), { totalTimeout: 300 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect(mock.requestsFor('tasks.create')).toHaveLength(0);
    // Let go (no holder), still saying the dead holder's POST may be in flight until then.
    await vi.waitFor(async () => expect((await recordOf(store, 'INFLIGHT-1')).holder).toBeUndefined());
    const record = await recordOf(store, 'INFLIGHT-1');
    expect(record).toMatchObject({ state: 'sending', since: dead.since, fence: 3 });
    expect(record.until).toBeGreaterThanOrEqual(dead.until);
  });
});

describe('a shared store that lost its keys (Redis restarted empty)', () => {
  it('looks the order up before sending, so an order created before the loss is not created again', async () => {
    const created = await client({ store: memoryStore() }).tasks.create(orderParams('WIPE-1'));
    const emptied = memoryStore();
    const task = await client({ store: emptied }).tasks.create(orderParams('WIPE-1'));
    expect(task.id).toBe(created.id);
    expect(tasksFor('WIPE-1')).toHaveLength(1);
  });

  it('stops looking first once the store has held its records for a while', async () => {
    const store = memoryStore();
    await store.setIfAbsent(storeKey(scope, 'epoch'), String(Date.now() - 600_000), 86_400_000);
    await client({ store }).tasks.create(orderParams('WIPE-2'));
    expect(mock.requestsFor('tasks.list')).toHaveLength(0);
  });
});

describe('a create waiting on another process while the store stumbles', () => {
  /** A memory store whose `get` fails `failures` times in a row once the lease is taken by "another process". */
  const stumbling = (failures: number) => {
    const inner = memoryStore();
    let left = 0;
    const store: DeliveryStore = {
      ...inner,
      get: (key) => (left-- > 0 ? Promise.reject(new Error('timeout')) : inner.get(key)),
    };
    const stumble = () => {
      left = failures;
    };
    return { inner, store, stumble };
  };

  it("rides out 3 failed store calls in a row and still returns the other process's task", async () => {
    const task = await client({ store: memoryStore() }).tasks.create(orderParams('STUMBLE-1'));
    const { inner, store, stumble } = stumbling(3);
    const sending = await anotherProcessHolds(inner, 'STUMBLE-1');
    const waiting = client({ store }).tasks.create(orderParams('STUMBLE-1'));
    setTimeout(stumble, 30);
    setTimeout(() => {
      const created = JSON.stringify({ state: 'created', taskId: task.id, fence: 1 });
      void inner.compareAndSet(orderKey('STUMBLE-1'), sending, created, 60_000);
    }, 400);
    expect((await waiting).id).toBe(task.id);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
  });

  it('gives up with StoreUnavailableError on the 4th failure in a row, having sent nothing', async () => {
    const { inner, store, stumble } = stumbling(4);
    await anotherProcessHolds(inner, 'STUMBLE-2');
    const waiting = client({ store })
      .tasks.create(orderParams('STUMBLE-2'))
      .catch((caught: unknown) => caught);
    setTimeout(stumble, 30);
    expect(await waiting).toBeInstanceOf(StoreUnavailableError);
    expect(mock.requestsFor('tasks.create')).toHaveLength(0);
  });
});

describe('when the store fails', () => {
  /** A memory store whose calls fail when `failOn(operation, args)` says so. */
  const failing = (
    failOn: (operation: keyof DeliveryStore, args: readonly unknown[]) => boolean,
  ): DeliveryStore => {
    const inner = memoryStore();
    const guard =
      <A extends unknown[], R>(operation: keyof DeliveryStore, call: (...args: A) => Promise<R>) =>
      (...args: A): Promise<R> =>
        failOn(operation, args) ? Promise.reject(new Error('connection lost')) : call(...args);
    return {
      setIfAbsent: guard('setIfAbsent', inner.setIfAbsent),
      get: guard('get', inner.get),
      compareAndSet: guard('compareAndSet', inner.compareAndSet),
      delete: guard('delete', inner.delete),
    };
  };

  it('fails closed with StoreUnavailableError and sends nothing when the store is down', async () => {
    const error = await client({ store: failing(() => true) })
      .tasks.create(orderParams('DOWN-1'))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(mock.requestsFor('tasks.create')).toHaveLength(0);
  });

  it('fails closed when the store hangs, within storeTimeoutMs', async () => {
    const hanging: DeliveryStore = {
      setIfAbsent: () => new Promise(() => {}),
      get: () => new Promise(() => {}),
      compareAndSet: () => new Promise(() => {}),
      delete: () => new Promise(() => {}),
    };
    const started = performance.now();
    const error = await client({ store: hanging, storeTimeoutMs: 100 })
      .tasks.create(orderParams('DOWN-2'))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(mock.requestsFor('tasks.create')).toHaveLength(0);
  });

  it('returns the created task when the store fails only after the POST', async () => {
    // Everything works up to the POST; writing the outcome ("created") fails.
    const recordingCreated = (operation: keyof DeliveryStore, args: readonly unknown[]) =>
      operation !== 'get' && args.some((arg) => typeof arg === 'string' && arg.includes('"state":"created"'));
    const task = await client({ store: failing(recordingCreated) }).tasks.create(orderParams('DOWN-3'));
    expect(task.orderNumber).toBe('DOWN-3');
    expect(tasksFor('DOWN-3')).toHaveLength(1);
  });
});
