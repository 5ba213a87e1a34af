/**
 * A late commit (src/resources/task-creation/late-commit.ts; docs/exactly-once.md "A late commit"): a
 * service that commits a POST after its client left, later than `listingDelayMs`, makes a second task
 * when the SDK sends the order again. The SDK cannot prevent it; it must not be silent about it. The
 * service is a real node:http server on 127.0.0.1 that drops the first POST's connection and passes its
 * body to the mock later, as a load balancer that queued it would.
 */
import { spawn } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { getResponse } from 'msw';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeliveryClient, type Logger, TaskCreationOutcomeUnknownError } from '../../../src/index.js';
import type { ResourceContext } from '../../../src/internal/context.js';
import { HELD_POST_MAX_MS } from '../../../src/resources/task-creation/held-post.js';
import {
  checkForLateCommit,
  MAX_PENDING_LATE_COMMIT_CHECKS,
  stopLateCommitChecks,
} from '../../../src/resources/task-creation/late-commit.js';
import { createMockDeliveryService } from '../../../src/testing.js';
import {
  type Forwarded,
  type HostileHandler,
  type HostileServer,
  hostileClient,
  startHostileServer,
} from '../../support/hostile-server.js';
import { orderParams } from '../../support/mock-service.js';
import { outputOf } from '../../support/process-output.js';
import { ROOT } from '../../support/root.js';
import { scriptArgs } from '../../support/source-script.js';

const LISTING_DELAY_MS = 300;

let hostile: HostileServer;
beforeAll(async () => {
  hostile = await startHostileServer();
});
beforeEach(() => hostile.mock.reset());
afterAll(() => hostile.close());

const tasksFor = (orderNumber: string) =>
  hostile.mock.tasks.filter((task) => task.orderNumber === orderNumber);
const listRequests = () => hostile.mock.requestsFor('tasks.list').length;

/** A logger keeping its error and warning lines. */
function keptLogger(): Logger & { errors: string[]; warnings: string[] } {
  const errors: string[] = [];
  const warnings: string[] = [];
  return {
    errors,
    warnings,
    debug: () => {},
    info: () => {},
    warn: (message) => warnings.push(message),
    error: (message) => errors.push(message),
  };
}

/**
 * Drops the first POST's connection before the mock sees it; `late`: its body reaches the mock once the
 * second POST was served (a late commit), else never. `heldUntil`: the later POSTs reach the mock once it
 * resolves.
 */
function droppingFirstPost(late: boolean, heldUntil?: Promise<void>): HostileHandler {
  let first: (() => Promise<Forwarded>) | undefined;
  let posts = 0;
  return async (request, response, { forward }) => {
    if (request.method === 'POST' && ++posts === 1) {
      first = forward;
      request.socket.destroy();
      return;
    }
    if (request.method === 'POST') await heldUntil;
    const answer = await forward();
    response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(answer.body);
    if (request.method === 'POST' && late) await first?.();
  };
}

describe('a create sent again after a lookup found no task of its unanswered POST', () => {
  const client = (logger: Logger) =>
    hostileClient(hostile, { listingDelayMs: LISTING_DELAY_MS, maxRetries: 2, logger, logLevel: 'warn' });

  it('logs an error naming both tasks when the first POST is committed after the second', async () => {
    hostile.use(droppingFirstPost(true));
    const logger = keptLogger();
    const task = await client(logger).tasks.create(orderParams('LATE-1'), { lookupFirst: false });
    // The service commits the dropped POST once it served the second: two tasks, the create's the second.
    const committed = Date.now() + 5000;
    while (tasksFor('LATE-1').length < 2 && Date.now() < committed) await sleep(10);
    const tasks = tasksFor('LATE-1');
    expect(tasks.map((listed) => listed.id)).toHaveLength(2);
    expect(tasks.map((listed) => listed.id)).toContain(task.id);
    expect(logger.errors).toEqual([]);
    const until = Date.now() + LISTING_DELAY_MS + 5000;
    while (logger.errors.length === 0 && Date.now() < until) await sleep(20);
    expect(logger.errors).toHaveLength(1);
    for (const listed of tasks) expect(logger.errors[0]).toContain(String(listed.id));
    expect(logger.errors[0]).toMatch(
      /^\[delivery-task-sdk\] Order LATE-1 has 2 tasks \(.*\): a POST was committed past listingDelayMs/,
    );
  });

  it('logs the error too when the create sent again is a later call, after an unknown outcome', async () => {
    hostile.use(droppingFirstPost(true));
    const logger = keptLogger();
    const created = client(logger);
    const first = await created.tasks
      .create(orderParams('LATE-5'), { lookupFirst: false, maxRetries: 0 })
      .catch((error: unknown) => error);
    expect(first).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect(tasksFor('LATE-5')).toEqual([]);
    await sleep((first as TaskCreationOutcomeUnknownError).retryAfterMs ?? 0);
    const task = await created.tasks.create(orderParams('LATE-5'));
    const committed = Date.now() + 5000;
    while (tasksFor('LATE-5').length < 2 && Date.now() < committed) await sleep(10);
    expect(tasksFor('LATE-5').map((listed) => listed.id)).toContain(task.id);
    const until = Date.now() + LISTING_DELAY_MS + 5000;
    while (logger.errors.length === 0 && Date.now() < until) await sleep(20);
    expect(logger.errors).toHaveLength(1);
    expect(logger.errors[0]).toMatch(/Order LATE-5 has 2 tasks/);
  });

  it('logs the error too when the create that sent again ended before its POST was answered', async () => {
    // The first POST dropped (committed late); the second held until the create has ended at its
    // totalTimeout, then committed and answered, the first committed after it.
    let release: () => void = () => {};
    const ended = new Promise<void>((resolve) => {
      release = resolve;
    });
    let posts = 0;
    const dropping = droppingFirstPost(true, ended);
    hostile.use((request, response, context) => {
      if (request.method === 'POST') posts++;
      return dropping(request, response, context);
    });
    const logger = keptLogger();
    const slowListing = hostileClient(hostile, {
      listingDelayMs: 1_000,
      maxRetries: 2,
      logger,
      logLevel: 'warn',
    });
    const failed = await slowListing.tasks
      .create(orderParams('LATE-7'), { lookupFirst: false, totalTimeout: 2_500 })
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect(posts).toBe(2);
    expect(hostile.mock.requestsFor('tasks.create')).toHaveLength(0);
    release();
    const committed = Date.now() + 5000;
    while (tasksFor('LATE-7').length < 2 && Date.now() < committed) await sleep(10);
    const tasks = tasksFor('LATE-7');
    expect(tasks).toHaveLength(2);
    const until = Date.now() + 1_000 + 5000;
    while (logger.errors.length === 0 && Date.now() < until) await sleep(20);
    expect(logger.errors).toHaveLength(1);
    for (const listed of tasks) expect(logger.errors[0]).toContain(String(listed.id));
    expect(logger.errors[0]).toMatch(/Order LATE-7 has 2 tasks/);
  });

  it('looks the order up once more after the listing delay, and logs nothing when it has one task', async () => {
    hostile.use(droppingFirstPost(false));
    const logger = keptLogger();
    const task = await client(logger).tasks.create(orderParams('LATE-2'), { lookupFirst: false });
    expect(tasksFor('LATE-2').map((listed) => listed.id)).toEqual([task.id]);
    const before = listRequests();
    const until = Date.now() + LISTING_DELAY_MS + 5000;
    while (listRequests() === before && Date.now() < until) await sleep(20);
    expect(listRequests()).toBe(before + 1);
    await sleep(200);
    expect(logger.errors).toEqual([]);
    expect(logger.warnings.filter((line) => line.includes('late commit'))).toEqual([]);
  });

  it('stops a waiting check with stopLateCommitChecks: no lookup after the listing delay, and no warning', async () => {
    hostile.use(droppingFirstPost(false));
    const logger = keptLogger();
    await client(logger).tasks.create(orderParams('LATE-4'), { lookupFirst: false });
    const before = listRequests();
    expect(stopLateCommitChecks()).toBeGreaterThanOrEqual(1);
    await sleep(LISTING_DELAY_MS + 500);
    expect(listRequests()).toBe(before);
    expect(logger.warnings.filter((line) => line.includes('late-commit'))).toEqual([]);
    expect(stopLateCommitChecks()).toBe(0);
  });

  it('stops a check while it looks up: its request is aborted, with no warning and no second lookup', async () => {
    const dropping = droppingFirstPost(false);
    let created = false;
    const held: IncomingMessage[] = [];
    hostile.use(async (request, response, context) => {
      // Once the create returned, the check's list request is held unanswered.
      if (created && request.method === 'GET') {
        held.push(request);
        return;
      }
      await dropping(request, response, context);
    });
    const logger = keptLogger();
    await client(logger).tasks.create(orderParams('LATE-6'), { lookupFirst: false });
    created = true;
    const until = Date.now() + LISTING_DELAY_MS + 5000;
    while (held.length === 0 && Date.now() < until) await sleep(20);
    expect(held).toHaveLength(1);
    const closed = new Promise((resolve) => held[0]?.socket.once('close', resolve));
    expect(stopLateCommitChecks()).toBeGreaterThanOrEqual(1);
    await closed;
    await sleep(LISTING_DELAY_MS + 300);
    expect(held).toHaveLength(1);
    expect(logger.warnings.filter((line) => line.includes('late-commit'))).toEqual([]);
    expect(logger.errors).toEqual([]);
  });

  it('does not look again after a create whose first POST was answered', async () => {
    hostile.use(async (_request, response, { forward }) => {
      const answer = await forward();
      response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(answer.body);
    });
    const task = await client(keptLogger()).tasks.create(orderParams('LATE-3'), { lookupFirst: false });
    expect(task.orderNumber).toBe('LATE-3');
    await sleep(LISTING_DELAY_MS + 500);
    expect(listRequests()).toBe(0);
  });
});

describe('the second lookup of a check, 120 s after the create', () => {
  it('reports again when it lists more tasks than the first lookup reported', async () => {
    vi.useFakeTimers({
      now: Date.parse('2026-12-01T08:00:00.000Z'),
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
    });
    try {
      const baseUrl = 'https://late-commit.test/rest';
      const mock = createMockDeliveryService({ baseUrl, account: { type: 'invoice' } });
      const serve = async (request: Request) => {
        const answer = await getResponse([...mock.handlers], request);
        if (answer === undefined) throw new TypeError('fetch failed');
        return answer;
      };
      let posts = 0;
      // The first POST's connection drops: its outcome unknown, so the create looks up and sends again.
      const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
        const request = new Request(input, init);
        if (request.method === 'POST' && ++posts === 1) {
          return Promise.reject(new TypeError('fetch failed', { cause: new Error('other side closed') }));
        }
        return serve(request);
      };
      const logger = keptLogger();
      const client = new DeliveryClient({
        apiKey: mock.apiKey,
        sellerId: mock.sellerId,
        baseUrl,
        fetch,
        logger,
        logLevel: 'warn',
        listingDelayMs: 1_000,
      });
      // Time passes 10 ms at a time until each create returns: the check's first lookup comes 1 s after.
      const settled = async <T>(creating: Promise<T>): Promise<T> => {
        let outcome: { value: T } | undefined;
        void creating.then((value) => {
          outcome = { value };
        });
        while (outcome === undefined) await vi.advanceTimersByTimeAsync(10);
        return outcome.value;
      };
      const task = await settled(client.tasks.create(orderParams('LATE-8'), { lookupFirst: false }));
      expect(posts).toBe(2);
      // A second task of the order before the first lookup (a repeat delivery), reported by it.
      await settled(client.tasks.create(orderParams('LATE-8'), { repeatDelivery: true }));
      expect(logger.errors).toEqual([]);
      await vi.advanceTimersByTimeAsync(5_000);
      expect(logger.errors).toHaveLength(1);
      expect(logger.errors[0]).toMatch(/Order LATE-8 has 2 tasks/);
      // The first POST committed late, after the first lookup: the second lookup lists three.
      const late = await serve(
        new Request(`${baseUrl}/tasks`, {
          method: 'POST',
          headers: {
            authorization: `apikey ${mock.apiKey}`,
            'x-seller-id': mock.sellerId,
            'content-type': 'application/json',
          },
          body: JSON.stringify(orderParams('LATE-8')),
        }),
      );
      expect(late.ok).toBe(true);
      await vi.advanceTimersByTimeAsync(HELD_POST_MAX_MS);
      const tasks = mock.tasks.filter((listed) => listed.orderNumber === 'LATE-8');
      expect(tasks).toHaveLength(3);
      expect(tasks.map((listed) => listed.id)).toContain(task.id);
      expect(logger.errors).toHaveLength(2);
      expect(logger.errors[1]).toMatch(/Order LATE-8 has 3 tasks/);
      for (const listed of tasks) expect(logger.errors[1]).toContain(String(listed.id));
    } finally {
      stopLateCommitChecks();
      vi.useRealTimers();
    }
  });
});

describe('a process that exits while a check waits', () => {
  /** Runs test/support/late-commit-exit.ts for `orderNumber` to its end. */
  const runProcess = (orderNumber: string, exit: boolean) => {
    const config = {
      baseUrl: hostile.url,
      apiKey: hostile.mock.apiKey,
      sellerId: hostile.mock.sellerId,
      orderNumber,
      exit,
    };
    return outputOf(
      spawn(process.execPath, [...scriptArgs('test/support/late-commit-exit.ts'), JSON.stringify(config)], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
  };

  it.each([
    ['its event loop empties', false],
    ['it calls process.exit', true],
  ])('warns, naming the order and when to look it up, when %s', async (_how, exit) => {
    hostile.use(droppingFirstPost(false));
    const orderNumber = exit ? 'EXIT-CALLED' : 'EXIT-EMPTY';
    const started = Date.now();
    const ended = await runProcess(orderNumber, exit);
    expect(ended.code, ended.stderr).toBe(0);
    // The create sent the order again (its first POST dropped): a check was waiting when it exited.
    expect(tasksFor(orderNumber).map((task) => task.id)).toEqual([ended.stdout.trim()]);
    expect(hostile.mock.requestsFor('tasks.create')).toHaveLength(1);
    const lines = ended.stderr.split('\n').filter((line) => line.includes('late-commit'));
    expect(lines, ended.stderr).toHaveLength(1);
    const warning =
      /^\[delivery-task-sdk\] Order (?<order>\S+): late-commit check not finished at exit; look its tasks up after (?<at>\S+) \(docs: "A late commit"\)/.exec(
        lines[0] ?? '',
      );
    expect(warning?.groups?.order, lines[0]).toBe(orderNumber);
    // Its last lookup was due 120 s (HELD_POST_MAX_MS) after the create.
    const lookupAt = Date.parse(warning?.groups?.at ?? '');
    expect(lookupAt - started).toBeGreaterThanOrEqual(HELD_POST_MAX_MS);
    expect(lookupAt - Date.now()).toBeLessThanOrEqual(HELD_POST_MAX_MS);
  });

  it('warns of nothing when no check waits (the first POST was answered)', async () => {
    const ended = await runProcess('EXIT-NONE', true);
    expect(ended.code, ended.stderr).toBe(0);
    expect(tasksFor('EXIT-NONE').map((task) => task.id)).toEqual([ended.stdout.trim()]);
    expect(ended.stderr).not.toContain('late-commit');
  });
});

describe('the bound on waiting late-commit checks', () => {
  it(`keeps at most ${MAX_PENDING_LATE_COMMIT_CHECKS} waiting, and warns for each one skipped`, () => {
    stopLateCommitChecks();
    const logger = keptLogger();
    // A listing delay no check reaches in this test: every check stays waiting (its timer keeps no process).
    const context = { listingDelayMs: 1e9, logger } as unknown as ResourceContext;
    for (let order = 0; order <= MAX_PENDING_LATE_COMMIT_CHECKS; order++) {
      checkForLateCommit(context, `BOUND-${order}`, Date.now());
    }
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toMatch(new RegExp(`^Order BOUND-${MAX_PENDING_LATE_COMMIT_CHECKS}:`));
    expect(stopLateCommitChecks()).toBe(MAX_PENDING_LATE_COMMIT_CHECKS);
    for (const line of logger.warnings)
      expect(line).toMatch(/^Order BOUND-\d+: late-commit check skipped \(too many waiting\)$/);
  });
});
