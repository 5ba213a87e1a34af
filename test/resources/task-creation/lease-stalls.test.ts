/**
 * A holder of an order's lease that stalls (docs/several-instances.md "Stalls"): its event loop frozen at a
 * chosen point, played in one process by a store whose answer comes "late" (the clock jumps while the
 * holder waits for it) and by "another process" (a second client over the same store) acting meanwhile.
 * Each test fails on a lease that trusts what it read before a wait.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { storeKey } from '../../../src/core/store.js';
import { type DeliveryStore, memoryStore, TaskCreationOutcomeUnknownError } from '../../../src/index.js';
import { LEASE_TTL_MS } from '../../../src/resources/task-creation/lease-terms.js';
import { aged } from '../../support/aged-store.js';
import { orderParams, useMockService } from '../../support/mock-service.js';

const { mock, client } = useMockService({ account: { type: 'wallet', balance: 5000 } });
const scope = { baseUrl: mock.baseUrl, sellerId: mock.sellerId };
const orderKey = (orderNumber: string) => storeKey(scope, 'order', orderNumber);
const tasksFor = (orderNumber: string) => mock.tasks.filter((task) => task.orderNumber === orderNumber);
/** The attempt timeout of the creates here, ms. */
const TIMEOUT_MS = 5000;

/** Date.now() as the SDK reads it: `frozen(ms)` moves it on, as a process sees the clock after a stall. */
const realNow = Date.now;
let skewMs = 0;
const frozen = (ms: number) => {
  skewMs += ms;
};

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
  skewMs = 0;
});

const stallingClock = () => {
  vi.spyOn(Date, 'now').mockImplementation(() => realNow.call(Date) + skewMs);
};

/** A memory store in use for long (no look-first window), read on the same clock as the SDK. */
const agedOnSdkClock = () => aged(memoryStore({ now: () => Date.now() }), scope);

const recordOf = async (store: DeliveryStore, orderNumber: string) =>
  JSON.parse((await store.get(orderKey(orderNumber))) ?? '{}') as Record<string, unknown>;

/** A write of the holder moving `until` on: the one that fences a POST. */
const movesUntil = (expected: string | undefined, value: string): boolean => {
  if (expected === undefined) return false;
  const before = JSON.parse(expected) as { state?: string; until?: number };
  const after = JSON.parse(value) as { state?: string; until?: number };
  return after.state === 'sending' && before.state === 'sending' && after.until !== before.until;
};

/**
 * `inner` with a hook on the fencing writes: `onFence(n)` runs after the n-th one (from 1) was applied and
 * before its answer reaches the holder, as a process frozen right after the write went out. `answeredAt`:
 * when each fence's answer reached the holder, by its clock (its checks come after that).
 */
const fencedStore = (inner: DeliveryStore, onFence: (n: number) => void | Promise<void> = () => {}) => {
  const answeredAt: number[] = [];
  const store: DeliveryStore = {
    ...inner,
    compareAndSet: async (key, expected, value, ttlMs) => {
      const replaced = await inner.compareAndSet(key, expected, value, ttlMs);
      if (replaced && movesUntil(expected, value)) {
        await onFence(answeredAt.length + 1);
        answeredAt.push(Date.now());
      }
      return replaced;
    },
  };
  return { store, answeredAt };
};

/**
 * A fetch that records each POST with the `until` the store held when it left and how many fences had
 * been answered by then. A POST that may start at the last fence's answer must end by that `until`.
 */
const watchedPosts = (inner: DeliveryStore, orderNumber: string, answeredAt: readonly number[]) => {
  const posts: { fences: number; until: number }[] = [];
  const watched: typeof fetch = async (input, init) => {
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    if (method === 'POST') {
      const fences = answeredAt.length;
      posts.push({ fences, until: Number((await recordOf(inner, orderNumber)).until) });
    }
    return fetch(input, init);
  };
  return { posts, watched };
};

describe('a holder whose process stalls', () => {
  it('sends nothing when it stalls past its lease right after fencing a resend, while another process creates the order', async () => {
    stallingClock();
    const inner = await agedOnSdkClock();
    // Another process: a second copy of the SDK's modules, so no in-process flight is shared.
    vi.resetModules();
    const other = await import('../../../src/index.js');
    const next = new other.DeliveryClient({
      apiKey: mock.apiKey,
      sellerId: mock.sellerId,
      baseUrl: mock.baseUrl,
      logLevel: 'off',
      store: inner,
      listingDelayMs: 20,
    });
    let created: { id: string } | undefined;
    // The first POST gets a 503 (nothing created), so the holder looks, finds nothing and fences a resend.
    mock.inject({ operation: 'tasks.create', kind: 'status', status: 503 });
    const { store } = fencedStore(inner, async (fence) => {
      if (fence !== 1) return;
      // Frozen 15 s right after the write: its lease ends; the other process takes the order over, looks it
      // up, sends and records its task.
      frozen(LEASE_TTL_MS + 5000);
      created = await next.tasks.create(orderParams('STALL-1'));
    });
    // Its store calls may take as long as the other process does.
    const outcome = await client({ store, timeout: TIMEOUT_MS, storeTimeoutMs: 60_000 })
      .tasks.create(orderParams('STALL-1'))
      .catch((error: unknown) => error);
    expect(created).toBeDefined();
    expect(tasksFor('STALL-1').map((task) => task.id)).toEqual([created?.id]);
    expect(outcome).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect(await recordOf(inner, 'STALL-1')).toEqual({ state: 'created', taskId: created?.id, fence: 2 });
  });

  it("waits out its own stall beyond the holder's until: the holder's POST, held by the same freeze, arrives late", async () => {
    stallingClock();
    const store = await agedOnSdkClock();
    const now = Date.now();
    // Another process holds the order: its POST is on its way (until 1 s from now), its lease ends soon.
    const holding = {
      state: 'sending',
      since: now,
      fence: 1,
      until: now + 1000,
      holder: 'other',
      leaseUntil: now + 200,
    };
    expect(await store.setIfAbsent(orderKey('STALL-5'), JSON.stringify(holding), 60_000)).toBe(true);
    const taker = client({ store, timeout: TIMEOUT_MS, listingDelayMs: 300 }).tasks.create(
      orderParams('STALL-5'),
    );
    // The machine is frozen 12 s while the taker waits: its pause ends 12 s late, and the holder's POST,
    // held by the same freeze, reaches the service 0.5 s after it (played by a client without the store).
    await new Promise((resolve) => setTimeout(resolve, 50));
    frozen(12_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const late = await client().tasks.create(orderParams('STALL-5'), { lookupFirst: false });
    expect((await taker).id).toBe(late.id);
    expect(tasksFor('STALL-5')).toHaveLength(1);
  });

  it('sends a POST only when its whole attempt ends before the until the store holds, after a stall while fencing', async () => {
    stallingClock();
    const inner = await agedOnSdkClock();
    mock.inject({ operation: 'tasks.create', kind: 'status', status: 503 });
    // The fencing write's answer comes 1.5 s late (the lease is still held: nobody takes over).
    const { store, answeredAt } = fencedStore(inner, (fence) => {
      if (fence === 1) frozen(1500);
    });
    const { posts, watched } = watchedPosts(inner, 'STALL-2', answeredAt);
    const task = await client({ store, timeout: TIMEOUT_MS, fetch: watched }).tasks.create(
      orderParams('STALL-2'),
    );
    expect(task.orderNumber).toBe('STALL-2');
    // The resend left after a second fence: the first one's answer came too late to cover it.
    expect(posts.map((post) => post.fences)).toEqual([0, 2]);
    const [, resend] = posts;
    expect((answeredAt[1] ?? Number.POSITIVE_INFINITY) + TIMEOUT_MS).toBeLessThanOrEqual(resend?.until ?? 0);
    expect(tasksFor('STALL-2')).toHaveLength(1);
  });

  it('keeps the until of a POST in flight when a lease renewal runs beside the write that set it', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    stallingClock();
    const inner = await agedOnSdkClock();
    mock.inject({ operation: 'tasks.create', kind: 'status', status: 503 });
    let renewals = 0;
    // The renewal timer fires while the fencing write of the resend is on its way to the store.
    const { store: fenced, answeredAt } = fencedStore(inner);
    const store: DeliveryStore = {
      ...fenced,
      compareAndSet: async (key, expected, value, ttlMs) => {
        const fence = answeredAt.length === 0 && movesUntil(expected, value);
        if (fence) vi.advanceTimersByTime(LEASE_TTL_MS / 3);
        const replaced = await fenced.compareAndSet(key, expected, value, ttlMs);
        if (!fence && answeredAt.length > 0) renewals++;
        return replaced;
      },
    };
    const posts: { fences: number; until: number }[] = [];
    const held: typeof fetch = async (input, init) => {
      const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
      // The first POST's answer comes 3 s late: the resend starts past what the order's first until covered.
      if (method === 'POST' && answeredAt.length === 0) frozen(3000);
      if (method === 'POST' && answeredAt.length > 0) {
        // While the resend is in flight, once the renewal queued behind the fence was written too.
        const fences = answeredAt.length;
        await vi.waitFor(() => expect(renewals).toBeGreaterThan(0));
        posts.push({ fences, until: Number((await recordOf(inner, 'STALL-3')).until) });
      }
      return fetch(input, init);
    };
    const task = await client({ store, timeout: TIMEOUT_MS, fetch: held }).tasks.create(
      orderParams('STALL-3'),
    );
    expect(task.orderNumber).toBe('STALL-3');
    expect(posts).toHaveLength(1);
    for (const { fences, until } of posts) {
      expect((answeredAt[fences - 1] ?? Number.POSITIVE_INFINITY) + TIMEOUT_MS).toBeLessThanOrEqual(until);
    }
  });
});
