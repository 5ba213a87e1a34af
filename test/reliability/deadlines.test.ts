/**
 * Every deadline the README promises holds through every path that can wait (README "Retries and
 * timeouts", "Exactly-once creation", "Running several instances"): attempts, backoffs, Retry-After,
 * reconciliation lookups and their waits, the order lease, the wait until an old POST cannot be in
 * flight, and store calls. The service is a real node:http server on 127.0.0.1 (test/support/hostile-server.ts)
 * that can accept a request and never answer, answer late, or dribble its body a byte a second.
 *
 * Each call must end by its deadline plus {@link SLACK_MS}, with the error the README names: a create
 * that may have reached the service ends `TaskCreationOutcomeUnknownError`, one that sent nothing that
 * could create a task ends `APIConnectionTimeoutError` saying so.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { storeKey } from '../../src/core/store.js';
import {
  APIConnectionTimeoutError,
  type ClientOptions,
  type DeliveryClient,
  type DeliveryStore,
  memoryStore,
  type RequestOptions,
  StatusWaitTimeoutError,
  StoreUnavailableError,
  TaskCreationOutcomeUnknownError,
} from '../../src/index.js';
import { INITIAL_BACKOFF_MS } from '../../src/internal/retry.js';
import { aged } from '../support/aged-store.js';
import {
  hostileClient as clientOf,
  type HostileHandler,
  type HostileServer,
  startHostileServer,
} from '../support/hostile-server.js';
import { loopStallMeter } from '../support/loop-stall.js';
import { orderParams } from '../support/mock-service.js';

/**
 * How far past its deadline a call may end: timers firing late and the stack unwinding on a machine
 * shared by several test runs (2 cores). Well under what any wait of the SDK adds (0.25 s at least).
 * Each call is also allowed the time its process could not run at all ({@link loopStallMeter}).
 */
const SLACK_MS = 400;
/** The deadline most tests give (`totalTimeout`, or `timeout` where that is what is tested), ms. */
const DEADLINE_MS = 1500;

let hostile: HostileServer;
beforeAll(async () => {
  hostile = await startHostileServer();
});
beforeEach(() => {
  hostile.mock.reset();
  hostile.use(forwardAll);
});
afterEach(closeHeldPosts);
afterAll(() => hostile.close());

const hostileClient = (overrides: ClientOptions = {}) => clientOf(hostile, overrides);
const scope = () => ({ baseUrl: `${hostile.url}/`, sellerId: hostile.mock.sellerId });
const tasksFor = (orderNumber: string) =>
  hostile.mock.tasks.filter((task) => task.orderNumber === orderNumber);
const postsFor = (orderNumber: string) =>
  hostile.mock
    .requestsFor('tasks.create')
    .filter((request) => (request.body as { orderNumber?: string }).orderNumber === orderNumber);

/** Forwards every request to the mock and answers as it does. */
const forwardAll: HostileHandler = async (_request, response, { forward }) => {
  const answer = await forward();
  response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(answer.body);
};

/** POSTs held unanswered by {@link neverAnswer} in `recording`, open until {@link closeHeldPosts}. */
const heldPosts = new Set<ServerResponse>();

/** Accepts the request and never answers (until the client goes away). */
const neverAnswer = (_response: ServerResponse) => {};

/**
 * The service closes the POSTs it held unanswered (a restart): a create keeps such a POST open past its
 * deadline (held-post.ts), and the order is decidable a listing delay after its connection ended.
 */
function closeHeldPosts(): void {
  for (const response of heldPosts) response.destroy();
  heldPosts.clear();
}

/**
 * {@link closeHeldPosts} once the POST the client sent is held: a create that ended saying its outcome is
 * unknown had handed its POST to `fetch`, and a loaded machine may deliver it to the server later, or never
 * (the request aborted at the deadline before its connection or headers reached the server: the SDK cannot
 * tell, so the outcome is unknown either way). After 10 s without a held POST, none of `seen` (the
 * requests that reached the handler) may be a POST: a POST that arrived is always held.
 */
async function closeHeldPostOnceArrived(seen: readonly string[]): Promise<void> {
  const giveUpAt = Date.now() + 10_000;
  while (heldPosts.size === 0 && Date.now() < giveUpAt) await sleep(10);
  if (heldPosts.size === 0) {
    expect(
      seen.filter((request) => request.startsWith('POST ')),
      `no POST held, yet one reached the handler; the hostile server's requests: ${hostile.requestsBegun().join(', ')}`,
    ).toEqual([]);
  }
  closeHeldPosts();
}

/** Pushes each request's method and path onto `seen`; forwards it, or never answers a POST. */
const recording =
  (seen: string[], { postsNeverAnswered = false } = {}): HostileHandler =>
  async (request, response, { forward }) => {
    seen.push(`${request.method} ${new URL(request.url ?? '/', 'http://x').pathname}`);
    if (postsNeverAnswered && request.method === 'POST') {
      heldPosts.add(response);
      return neverAnswer(response);
    }
    return forwardAll(request, response, { forward, body: Buffer.alloc(0) });
  };

/** Sends the headers, then the body one byte a second. */
function dribble(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
  });
  let sent = 0;
  const timer = setInterval(() => {
    if (sent >= body.length || response.destroyed) {
      clearInterval(timer);
      if (!response.destroyed) response.end();
      return;
    }
    response.write(body[sent++]);
  }, 1000);
  response.once('close', () => clearInterval(timer));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Ended {
  /** `still running` when the call had not settled by the limit. */
  outcome: 'resolved' | 'rejected' | 'still running';
  error?: unknown;
  /** Time until it settled (or until the limit), ms. */
  ms: number;
  /** Of `ms`, how long this process's event loop could not run (see {@link loopStallMeter}), ms. */
  stalledMs: number;
}

/**
 * How `call` ended, waiting at most `deadlineMs` + {@link SLACK_MS} (+ a little, to tell "late" from
 * "never"): a call still running then is reported as such, and the test fails on it at once.
 */
async function endOf(
  call: Promise<unknown>,
  deadlineMs: number,
  started = performance.now(),
): Promise<Ended> {
  const stalled = loopStallMeter();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<Omit<Ended, 'stalledMs'>>((resolve) => {
    timer = setTimeout(
      () => resolve({ outcome: 'still running', ms: performance.now() - started }),
      deadlineMs + SLACK_MS + 500,
    );
  });
  const settled = call.then(
    () => ({ outcome: 'resolved' as const, ms: performance.now() - started }),
    (error: unknown) => ({ outcome: 'rejected' as const, error, ms: performance.now() - started }),
  );
  try {
    return { ...(await Promise.race([settled, limit])), stalledMs: stalled() };
  } finally {
    clearTimeout(timer);
    stalled();
  }
}

/**
 * Asserts the call settled `outcome` by `deadlineMs` + {@link SLACK_MS} + the loop's stall; `call` names it
 * in the messages.
 */
function settledInTime(ended: Ended, deadlineMs: number, outcome: Ended['outcome'], call = 'the call'): void {
  const stall = `, the event loop stalled ${Math.round(ended.stalledMs)} ms of it`;
  expect(ended.outcome, `${call} ended ${ended.outcome} after ${Math.round(ended.ms)} ms${stall}`).toBe(
    outcome,
  );
  expect(ended.ms, `${call} ended after ${Math.round(ended.ms)} ms${stall}`).toBeLessThanOrEqual(
    deadlineMs + SLACK_MS + ended.stalledMs,
  );
}

/** Asserts the call ended by `deadlineMs` + {@link SLACK_MS} (+ the loop's stall) with an error; returns the error. */
function endedInTime(ended: Ended, deadlineMs: number, call?: string): unknown {
  settledInTime(ended, deadlineMs, 'rejected', call);
  return ended.error;
}

/** A store whose calls named in `stalled` never settle; the others go to a memory store. */
function stallingStore(stalled: ReadonlySet<keyof DeliveryStore>, backing = memoryStore()): DeliveryStore {
  const never = new Promise<never>(() => {});
  return {
    setIfAbsent: (key, value, ttlMs) =>
      stalled.has('setIfAbsent') ? never : backing.setIfAbsent(key, value, ttlMs),
    get: (key) => (stalled.has('get') ? never : backing.get(key)),
    compareAndSet: (key, expected, value, ttlMs) =>
      stalled.has('compareAndSet') ? never : backing.compareAndSet(key, expected, value, ttlMs),
    delete: (key, expected) => (stalled.has('delete') ? never : backing.delete(key, expected)),
  };
}

/** A memory store whose writes of a failed create's record land 300 ms late (a slow store). */
function slowFailureStore(): DeliveryStore {
  const backing = memoryStore();
  return {
    ...stallingStore(new Set(), backing),
    compareAndSet: async (key, expected, value, ttlMs) => {
      if (value.includes('"state":"failed"')) await sleep(300);
      return backing.compareAndSet(key, expected, value, ttlMs);
    },
  };
}

/**
 * Creates `orderNumber` again after the `retryAfterMs` of the create that ended at its deadline (`ended`),
 * as its error says to, its failure not recorded yet: the retry looks the order up once before it sends,
 * and creates it once.
 */
async function retriedAfter(
  sdk: DeliveryClient,
  ended: unknown,
  orderNumber: string,
  seen: string[],
): Promise<void> {
  expect(ended).toBeInstanceOf(TaskCreationOutcomeUnknownError);
  await closeHeldPostOnceArrived(seen);
  await sleep((ended as TaskCreationOutcomeUnknownError).retryAfterMs ?? 0);
  hostile.use(recording(seen));
  seen.length = 0;
  const task = await sdk.tasks.create(orderParams(orderNumber));
  expect(task.orderNumber).toBe(orderNumber);
  // A lookup first, one POST; a POST answered after its attempt timeout (a loaded machine) is looked up again.
  expect(seen[0]).toBe('GET /rest/tasks');
  expect(seen.filter((request) => request === 'POST /rest/tasks')).toHaveLength(1);
  expect(tasksFor(orderNumber)).toHaveLength(1);
}

/** A memory store in use for a while, so creates do not look their order up first (FRESH_STORE_MS). */
function agedStore(): Promise<DeliveryStore> {
  return aged(memoryStore(), scope());
}

describe('tasks.create ends by its totalTimeout', () => {
  it('when the service accepts each POST and never answers: outcome unknown, and the next create looks first', async () => {
    const orderNumber = 'DL-NEVER';
    const seen: string[] = [];
    hostile.use(recording(seen, { postsNeverAnswered: true }));
    // A listing delay past the deadline (the default is 10 s; shorter here, so the next create waits less).
    // The POST's own time is the subject: no lookup before it, whose time would come out of the deadline.
    const sdk = hostileClient({ timeout: 1000, listingDelayMs: DEADLINE_MS + 1000, lookupFirst: false });
    const ended = await endOf(
      sdk.tasks.create(orderParams(orderNumber), { totalTimeout: DEADLINE_MS }),
      DEADLINE_MS,
    );
    const error = endedInTime(ended, DEADLINE_MS);
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    // It ends as soon as it knows the deadline cannot cover the listing delay, and says when a retry can decide.
    expect((error as Error).message).toMatch(/totalTimeout/);
    expect((error as TaskCreationOutcomeUnknownError).retryAfterMs).toBeGreaterThan(0);
    expect((error as TaskCreationOutcomeUnknownError).orderNumber).toBe(orderNumber);

    // The order's record kept that sending began: the next create looks the order up before it sends
    // (its reads allowed the default timeout: 1 s is this test's POST attempt, not a loaded machine's GET),
    // once the held POST's connection ended and the listing delay passed.
    await closeHeldPostOnceArrived(seen);
    hostile.use(recording(seen));
    seen.length = 0;
    const task = await sdk.tasks.create(orderParams(orderNumber), { timeout: 30_000 });
    expect(task.orderNumber).toBe(orderNumber);
    expect(seen[0]).toBe('GET /rest/tasks');
    expect(seen.at(-1)).toBe('POST /rest/tasks');
    expect(tasksFor(orderNumber)).toHaveLength(1);
  });

  it("a create of the same order after one ended at its deadline looks the order up, though the first one's failure is recorded later", async () => {
    const orderNumber = 'DL-RETRY';
    const seen: string[] = [];
    hostile.use(recording(seen, { postsNeverAnswered: true }));
    const sdk = hostileClient({ store: slowFailureStore(), timeout: 5000, listingDelayMs: 200 });
    const first = await endOf(sdk.tasks.create(orderParams(orderNumber), { totalTimeout: 500 }), 500);
    await retriedAfter(sdk, endedInTime(first, 500), orderNumber, seen);
  });

  it('the same when the last caller to leave was one that joined the create with a totalTimeout of its own', async () => {
    const orderNumber = 'DL-RETRY-JOINED';
    const seen: string[] = [];
    hostile.use(recording(seen, { postsNeverAnswered: true }));
    const sdk = hostileClient({ store: slowFailureStore(), timeout: 5000, listingDelayMs: 200 });
    const leaving = new AbortController();
    const started = sdk.tasks.create(orderParams(orderNumber), { signal: leaving.signal });
    const joined = endOf(sdk.tasks.create(orderParams(orderNumber), { totalTimeout: 500 }), 500);
    await sleep(100);
    leaving.abort();
    await expect(started).rejects.toBeInstanceOf(TaskCreationOutcomeUnknownError);
    await retriedAfter(sdk, endedInTime(await joined, 500), orderNumber, seen);
  });

  it("when the client's totalTimeout is the deadline (no per-call option)", async () => {
    hostile.use(async (request, response, { forward }) => {
      if (request.method === 'POST') return neverAnswer(response);
      return forwardAll(request, response, { forward, body: Buffer.alloc(0) });
    });
    // The POST's time is the subject: no lookup before it (a loaded machine's lookup took the whole deadline).
    const sdk = hostileClient({ timeout: 1000, totalTimeout: DEADLINE_MS, lookupFirst: false });
    const error = endedInTime(
      await endOf(sdk.tasks.create(orderParams('DL-CLIENT')), DEADLINE_MS),
      DEADLINE_MS,
    );
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect((error as Error).message).toMatch(/totalTimeout/);
  });

  it('when the service commits each POST but answers after the attempt timeout, then lists it late: the late answer', async () => {
    const orderNumber = 'DL-LATE';
    hostile.use(async (request, response, { forward }) => {
      if (request.method === 'POST') {
        // The POST reaches the service only after the client's attempt timed out.
        await sleep(1200);
        const answer = await forward();
        if (!response.destroyed) response.writeHead(answer.status).end(answer.body);
        return;
      }
      return forwardAll(request, response, { forward, body: Buffer.alloc(0) });
    });
    // A listing delay past the deadline (the default is 10 s; shorter here, so the next create waits less).
    const sdk = hostileClient({ timeout: 1000, listingDelayMs: DEADLINE_MS + 1000 });
    const ended = await endOf(
      sdk.tasks.create(orderParams(orderNumber), { totalTimeout: DEADLINE_MS }),
      DEADLINE_MS,
    );
    // Its POST, held open past its attempt, is answered 1.2 s in, before the 1.5 s deadline: that answer is
    // the outcome. A loaded machine may serve it after the deadline: then the outcome is unknown, in time.
    settledInTime(ended, DEADLINE_MS, ended.outcome === 'resolved' ? 'resolved' : 'rejected');
    if (ended.outcome === 'rejected') expect(ended.error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    // The next create finds it and sends nothing.
    await sleep(300);
    hostile.use(forwardAll);
    const task = await sdk.tasks.create(orderParams(orderNumber));
    expect(tasksFor(orderNumber)).toHaveLength(1);
    expect(task.id).toBe(tasksFor(orderNumber)[0]?.id);
    expect(postsFor(orderNumber)).toHaveLength(1);
  });

  it('when every answer (the POST and the lookups) dribbles its body a byte a second', async () => {
    hostile.use(async (_request, response, { forward }) => {
      const answer = await forward();
      dribble(response, answer.status, answer.body);
    });
    // Without a lookup before sending: the POST's answer dribbles, then the lookups reconciling it.
    const ended = await endOf(
      hostileClient().tasks.create(orderParams('DL-DRIBBLE'), {
        totalTimeout: DEADLINE_MS,
        lookupFirst: false,
      }),
      DEADLINE_MS,
    );
    const error = endedInTime(ended, DEADLINE_MS);
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect((error as Error).message).toContain(`totalTimeout of ${DEADLINE_MS} ms`);
    // With it (the default without a store), the lookup before sending dribbles: nothing is sent, and the error says so.
    const looking = await endOf(
      hostileClient().tasks.create(orderParams('DL-DRIBBLE-FIRST'), { totalTimeout: DEADLINE_MS }),
      DEADLINE_MS,
    );
    const unsent = endedInTime(looking, DEADLINE_MS);
    expect(unsent).toBeInstanceOf(APIConnectionTimeoutError);
    expect((unsent as Error).message).toContain('no POST was sent');
    expect(postsFor('DL-DRIBBLE-FIRST')).toHaveLength(0);
  });

  it('when the POST is dropped after the commit and the lookups are never answered', async () => {
    hostile.use(async (request, response, { forward }) => {
      if (request.method === 'POST') {
        await forward();
        response.destroy();
        return;
      }
      return neverAnswer(response);
    });
    // The lookups after the POST are the subject: none before it (it would never be answered, nothing sent).
    const ended = await endOf(
      hostileClient().tasks.create(orderParams('DL-LOOKUP'), {
        totalTimeout: DEADLINE_MS,
        lookupFirst: false,
      }),
      DEADLINE_MS,
    );
    const error = endedInTime(ended, DEADLINE_MS);
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect(tasksFor('DL-LOOKUP')).toHaveLength(1);
  });

  it('when the service answers 429 with a Retry-After of 60 s: nothing created, and the error says so', async () => {
    hostile.use(async (request, response, { forward }) => {
      if (request.method === 'POST') {
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '60' });
        response.end('{"message":"slow down"}');
        return;
      }
      return forwardAll(request, response, { forward, body: Buffer.alloc(0) });
    });
    const ended = await endOf(
      hostileClient().tasks.create(orderParams('DL-429'), { totalTimeout: DEADLINE_MS }),
      DEADLINE_MS,
    );
    const error = endedInTime(ended, DEADLINE_MS);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as APIConnectionTimeoutError).timeoutMs).toBe(DEADLINE_MS);
    expect((error as Error).message).toMatch(/no task was created/);
    expect(tasksFor('DL-429')).toHaveLength(0);
  });

  it('without an orderNumber: a 429 with a Retry-After of 60 s', async () => {
    hostile.use(async (request, response, { forward }) => {
      if (request.method === 'POST') {
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '60' }).end('{}');
        return;
      }
      return forwardAll(request, response, { forward, body: Buffer.alloc(0) });
    });
    const { orderNumber: _none, ...params } = orderParams('DL-NO-ORDER');
    const ended = await endOf(
      hostileClient().tasks.create(params, { totalTimeout: DEADLINE_MS }),
      DEADLINE_MS,
    );
    const error = endedInTime(ended, DEADLINE_MS);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as Error).message).toMatch(/no task was created/);
    expect((error as APIConnectionTimeoutError).attempts).toBe(1);
  });

  it('when backoffs between resends of a POST that was not processed add up past it', async () => {
    // Backoffs of 0.25–0.5, 0.5–1, 1–2, 2–4 s (INITIAL_BACKOFF_MS halved by jitter at least): by 3 s at most
    // 4 POSTs fit, and the lookup and the first POST may take most of a second on a loaded machine.
    const deadlineMs = 3000;
    const postsAt: number[] = [];
    hostile.use(async (request, response, { forward }) => {
      if (request.method === 'POST') {
        postsAt.push(performance.now());
        response.writeHead(429, { 'content-type': 'application/json' }).end('{"message":"slow down"}');
        return;
      }
      return forwardAll(request, response, { forward, body: Buffer.alloc(0) });
    });
    const started = performance.now();
    const ended = await endOf(
      hostileClient({ maxRetries: 10 }).tasks.create(orderParams('DL-BACKOFF'), { totalTimeout: deadlineMs }),
      deadlineMs,
      started,
    );
    const error = endedInTime(ended, deadlineMs);
    const timeline = postsAt.map((at) => Math.round(at - started)).join(', ');
    // Backoffs ran: the deadline passed after resends, not during the first POST.
    expect(postsAt.length, `POSTs at ${timeline} ms`).toBeGreaterThanOrEqual(2);
    expect(postsAt.length, `POSTs at ${timeline} ms`).toBeLessThanOrEqual(4);
    // Each resend waited at least its backoff: 250 ms before the second POST, 500 before the third, ...
    // (less 1 ms: Node's timers count whole ms).
    for (const [index, at] of postsAt.entries()) {
      if (index === 0) continue;
      const waited = at - (postsAt[index - 1] as number);
      expect(waited, `POSTs at ${timeline} ms`).toBeGreaterThanOrEqual(
        (INITIAL_BACKOFF_MS / 2) * 2 ** (index - 1) - 1,
      );
    }
    // Where the deadline fell decides what is known: before a POST left or in a backoff, every POST was
    // answered 429 and nothing was created; during a POST (a loaded machine answers late), it may create.
    if (error instanceof TaskCreationOutcomeUnknownError) {
      expect(error.message).toMatch(/while sending the POST/);
    } else {
      expect(error).toBeInstanceOf(APIConnectionTimeoutError);
      expect((error as Error).message).toMatch(/no task was created/);
    }
  });

  it.each([
    ['get', new Set<keyof DeliveryStore>(['get', 'setIfAbsent', 'compareAndSet'])],
    ['setIfAbsent', new Set<keyof DeliveryStore>(['setIfAbsent'])],
  ] as const)(
    'when the store stops answering (%s): no POST sent, and the error says so',
    async (_name, stalled) => {
      const orderNumber = `DL-STORE-${_name}`;
      const store = stallingStore(stalled, await agedStore());
      const sdk = hostileClient({ store, storeTimeoutMs: 60_000 });
      const ended = await endOf(
        sdk.tasks.create(orderParams(orderNumber), { totalTimeout: DEADLINE_MS }),
        DEADLINE_MS,
      );
      const error = endedInTime(ended, DEADLINE_MS);
      expect(error).toBeInstanceOf(APIConnectionTimeoutError);
      expect((error as Error).message).toMatch(/no POST was sent/);
      expect((error as APIConnectionTimeoutError).attempts).toBe(0);
      expect(postsFor(orderNumber)).toHaveLength(0);
    },
  );

  it('when the store stops answering once the POST was sent (compareAndSet): the task, by the deadline', async () => {
    const orderNumber = 'DL-STORE-AFTER';
    const store = stallingStore(new Set(['compareAndSet']), await agedStore());
    const sdk = hostileClient({ store, storeTimeoutMs: 60_000 });
    const started = performance.now();
    const creating = sdk.tasks.create(orderParams(orderNumber), { totalTimeout: DEADLINE_MS });
    const ended = await endOf(creating, DEADLINE_MS, started);
    settledInTime(ended, DEADLINE_MS, 'resolved');
    expect(postsFor(orderNumber)).toHaveLength(1);
    expect(await creating).toMatchObject({ orderNumber, id: expect.any(String) });
  });

  it('without a totalTimeout, by storeTimeoutMs when the store stops answering: nothing sent', async () => {
    const orderNumber = 'DL-STORE-TIMEOUT';
    const store = stallingStore(new Set(['get', 'setIfAbsent', 'compareAndSet']), await agedStore());
    const storeTimeoutMs = 500;
    const ended = await endOf(
      hostileClient({ store, storeTimeoutMs }).tasks.create(orderParams(orderNumber)),
      storeTimeoutMs,
    );
    const error = endedInTime(ended, storeTimeoutMs);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(postsFor(orderNumber)).toHaveLength(0);
  });

  it('when another process holds the order lease and never finishes', async () => {
    const orderNumber = 'DL-LEASE';
    const store = await agedStore();
    // Its record holds the lease for a minute.
    await store.setIfAbsent(
      storeKey(scope(), 'order', orderNumber),
      JSON.stringify({
        state: 'sending',
        since: Date.now(),
        fence: 1,
        holder: 'another-process',
        leaseUntil: Date.now() + 60_000,
      }),
      60_000,
    );
    const ended = await endOf(
      hostileClient({ store }).tasks.create(orderParams(orderNumber), { totalTimeout: DEADLINE_MS }),
      DEADLINE_MS,
    );
    const error = endedInTime(ended, DEADLINE_MS);
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect(postsFor(orderNumber)).toHaveLength(0);
  });

  it("when it waits until an old holder's POST cannot be in flight, then the lookups stall", async () => {
    const orderNumber = 'DL-INFLIGHT';
    const store = await agedStore();
    // A holder that died 0.1 s ago with its POST possibly in flight for 1.3 s more; its lease has ended.
    await store.setIfAbsent(
      storeKey(scope(), 'order', orderNumber),
      JSON.stringify({ state: 'sending', since: Date.now() - 100, fence: 1, until: Date.now() + 1300 }),
      60_000,
    );
    hostile.use(async (_request, response) => neverAnswer(response));
    const ended = await endOf(
      hostileClient({ store }).tasks.create(orderParams(orderNumber), { totalTimeout: DEADLINE_MS }),
      DEADLINE_MS,
    );
    const error = endedInTime(ended, DEADLINE_MS);
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect(postsFor(orderNumber)).toHaveLength(0);
  });

  it('for each caller of one flight: a joiner with a shorter totalTimeout leaves at its own', async () => {
    let postArrived = () => {};
    const posted = new Promise<void>((resolve) => {
      postArrived = resolve;
    });
    hostile.use(async (request, response, { forward }) => {
      if (request.method !== 'POST') return forwardAll(request, response, { forward, body: Buffer.alloc(0) });
      postArrived();
      return neverAnswer(response);
    });
    const sdk = hostileClient({ timeout: 5000 });
    const started = performance.now();
    const first = sdk.tasks.create(orderParams('DL-JOIN'), { totalTimeout: 4000 });
    first.catch(() => {});
    // Joined once the flight's POST is out, so at the joiner's deadline the outcome is unknown (joined
    // before it, on a busy machine, the joiner could rightly end saying nothing was sent).
    await posted;
    const joiner = endOf(sdk.tasks.create(orderParams('DL-JOIN'), { totalTimeout: 800 }), 800);
    const error = endedInTime(await joiner, 800);
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect((error as Error).message).toContain('totalTimeout of 800 ms');
    const firstError = endedInTime(await endOf(first, 4000, started), 4000);
    expect(firstError).toBeInstanceOf(TaskCreationOutcomeUnknownError);
  });
});

describe('reads end by timeout and totalTimeout', () => {
  it('totalTimeout: a server that accepts and never answers, retried', async () => {
    hostile.use(async (_request, response) => neverAnswer(response));
    const call = hostileClient({ timeout: 1000, maxRetries: 5 }).wallet.retrieveBalance({
      totalTimeout: DEADLINE_MS,
    });
    const error = endedInTime(await endOf(call, DEADLINE_MS), DEADLINE_MS);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as APIConnectionTimeoutError).timeoutMs).toBe(DEADLINE_MS);
  });

  it('totalTimeout: a body dribbled a byte a second', async () => {
    hostile.use(async (_request, response, { forward }) => {
      const answer = await forward();
      dribble(response, answer.status, answer.body);
    });
    const call = hostileClient().branches.list({ totalTimeout: DEADLINE_MS });
    const error = endedInTime(await endOf(call, DEADLINE_MS), DEADLINE_MS);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
  });

  it('totalTimeout: a 503 with a Retry-After of 60 s', async () => {
    hostile.use(async (_request, response) => {
      response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '60' }).end('{}');
    });
    const call = hostileClient().tasks.retrieve('task-1', { totalTimeout: DEADLINE_MS });
    const error = endedInTime(await endOf(call, DEADLINE_MS), DEADLINE_MS);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as APIConnectionTimeoutError).timeoutMs).toBe(DEADLINE_MS);
  });

  it('timeout (per attempt, no retries): a body dribbled a byte a second', async () => {
    hostile.use(async (_request, response, { forward }) => {
      const answer = await forward();
      dribble(response, answer.status, answer.body);
    });
    const call = hostileClient({ timeout: DEADLINE_MS, maxRetries: 0 }).branches.list();
    const error = endedInTime(await endOf(call, DEADLINE_MS), DEADLINE_MS);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as APIConnectionTimeoutError).timeoutMs).toBe(DEADLINE_MS);
  });

  // 60 creates through the proxy first: over 20 s with both cores busy (npm run test:stress).
  it('totalTimeout bounds a whole list walk, not each page', async () => {
    const sdk = hostileClient();
    for (let batch = 0; batch < 6; batch++) {
      await Promise.all(
        Array.from({ length: 10 }, (_, index) => sdk.tasks.create(orderParams(`DL-WALK-${batch}-${index}`))),
      );
    }
    // Each page takes 0.4 s; read one after another, the 6 pages take 2.4 s.
    hostile.use(async (request, response, { forward }) => {
      await sleep(400);
      return forwardAll(request, response, { forward, body: Buffer.alloc(0) });
    });
    const walk = sdk.tasks.list({}, { totalTimeout: DEADLINE_MS, concurrency: 1 }).toArray();
    const error = endedInTime(await endOf(walk, DEADLINE_MS), DEADLINE_MS);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as APIConnectionTimeoutError).timeoutMs).toBe(DEADLINE_MS);
  }, 60_000);
});

describe('tasks.waitForStatus ends by its timeout', () => {
  it('when the server accepts each read and never answers', async () => {
    hostile.use(async (_request, response) => neverAnswer(response));
    const call = hostileClient().tasks.waitForStatus('task-1', 'delivered', {
      timeout: DEADLINE_MS,
      intervalMs: 100,
    });
    const error = endedInTime(await endOf(call, DEADLINE_MS), DEADLINE_MS);
    expect(error).toBeInstanceOf(StatusWaitTimeoutError);
  });

  it('when each read is answered 503 with a Retry-After of 60 s', async () => {
    hostile.use(async (_request, response) => {
      response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '60' }).end('{}');
    });
    const call = hostileClient().tasks.waitForStatus('task-1', 'delivered', {
      timeout: DEADLINE_MS,
      intervalMs: 100,
    });
    const error = endedInTime(await endOf(call, DEADLINE_MS), DEADLINE_MS);
    expect(error).toBeInstanceOf(StatusWaitTimeoutError);
  });
});

/** Each public method but `waitForStatus` (whose deadline is its `timeout`), called with `options`. */
const PUBLIC_CALLS: readonly [string, (sdk: DeliveryClient, options: RequestOptions) => Promise<unknown>][] =
  [
    ['tasks.findByOrderNumber', (sdk, options) => sdk.tasks.findByOrderNumber('DL-FIND', options)],
    ['tasks.list, awaited (one page)', async (sdk, options) => await sdk.tasks.list({}, options)],
    ['tasks.list, walked', (sdk, options) => sdk.tasks.list({}, options).toArray()],
    [
      'tasks.list, walked to a creation bound',
      (sdk, options) => sdk.tasks.list({ createdAfter: '2026-01-01T00:00:00Z' }, options).toArray(),
    ],
    ['tasks.retrieve', (sdk, options) => sdk.tasks.retrieve('task-1', options)],
    [
      'tasks.estimate',
      (sdk, options) =>
        sdk.tasks.estimate(
          { from: { latitude: 29.3, longitude: 47.9 }, to: { latitude: 29.4, longitude: 48 } },
          options,
        ),
    ],
    [
      'tasks.create with an orderNumber',
      (sdk, options) => sdk.tasks.create(orderParams('DL-STALL'), options),
    ],
    [
      'tasks.create without one',
      (sdk, options) => {
        const { orderNumber: _orderNumber, ...params } = orderParams('DL-STALL-NONE');
        return sdk.tasks.create(params, options);
      },
    ],
    ['branches.list', (sdk, options) => sdk.branches.list(options)],
    ['wallet.retrieveBalance', (sdk, options) => sdk.wallet.retrieveBalance(options)],
    ['wallet.topUp', (sdk, options) => sdk.wallet.topUp({ amount: 10 }, options)],
  ];

/**
 * A deadline covers the whole public call, its own retries and waits included (README "Retries and
 * timeouts"): against a service that accepts every request and never answers, with the default attempt
 * timeout (30 s) and 2 retries, every method ends by its `totalTimeout` (per call, or the client's)
 * plus {@link SLACK_MS} and the loop's stall, with `APIConnectionTimeoutError` (nothing was sent that
 * could create a task: a create's POST is never reached, or, without an orderNumber, never answered).
 */
describe('every public method ends by its totalTimeout against a stalled service', () => {
  // The calls of a test run side by side (each its own client), as the deadlines do not depend on one
  // another: one test's wait instead of eleven.
  it.each([
    ['on the call', {}, { totalTimeout: DEADLINE_MS }],
    ["the client's", { totalTimeout: DEADLINE_MS }, {}],
  ] as const)('each of them, with totalTimeout %s', async (_where, clientOptions, callOptions) => {
    hostile.use(async (_request, response) => neverAnswer(response));
    const ended = await Promise.all(
      PUBLIC_CALLS.map(async ([name, call]) => {
        const sdk = hostileClient(clientOptions);
        return [name, await endOf(call(sdk, callOptions), DEADLINE_MS)] as const;
      }),
    );
    for (const [name, end] of ended) {
      const error = endedInTime(end, DEADLINE_MS, name);
      expect(error, name).toBeInstanceOf(
        name === 'tasks.create without one' ? TaskCreationOutcomeUnknownError : APIConnectionTimeoutError,
      );
    }
  });

  it("tasks.waitForStatus, by the client's totalTimeout when it is given no timeout of its own", async () => {
    hostile.use(async (_request, response) => neverAnswer(response));
    const call = hostileClient({ totalTimeout: DEADLINE_MS }).tasks.waitForStatus('task-1', 'delivered', {
      intervalMs: 100,
    });
    expect(endedInTime(await endOf(call, DEADLINE_MS), DEADLINE_MS)).toBeInstanceOf(StatusWaitTimeoutError);
  });

  it.each([
    ['on the call', {}, { totalTimeout: DEADLINE_MS }],
    ["the client's", { totalTimeout: DEADLINE_MS }, {}],
  ] as const)(
    'findByOrderNumber and a list walk: totalTimeout %s bounds the whole walk, not each page',
    async (_name, clientOptions, callOptions) => {
      const sdk = hostileClient();
      for (let batch = 0; batch < 6; batch++) {
        await Promise.all(
          Array.from({ length: 10 }, (_, index) =>
            sdk.tasks.create(orderParams(`DL-PAGES-${batch}-${index}`), { lookupFirst: false }),
          ),
        );
      }
      // Each page takes 0.4 s; the 6 pages take 2.4 s one after another. The service refuses the anchored
      // pattern (400), so the order's lookup searches literally and walks every task holding "DL-PAGES".
      hostile.use(async (request, response, { forward }) => {
        if (request.url?.includes('ignoreRegex=false')) {
          response.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"bad search"}');
          return;
        }
        await sleep(400);
        return forwardAll(request, response, { forward, body: Buffer.alloc(0) });
      });
      const slow = hostileClient(clientOptions);
      for (const call of [
        () => slow.tasks.findByOrderNumber('DL-PAGES', { ...callOptions, maxPages: 20 }),
        () => slow.tasks.list({ search: 'DL-PAGES' }, { ...callOptions, concurrency: 1 }).toArray(),
      ]) {
        expect(endedInTime(await endOf(call(), DEADLINE_MS), DEADLINE_MS)).toBeInstanceOf(
          APIConnectionTimeoutError,
        );
      }
    },
  );
});
