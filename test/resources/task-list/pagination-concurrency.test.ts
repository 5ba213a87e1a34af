/**
 * Concurrent page walks of `tasks.list` over real sockets on 127.0.0.1: a small page server written here
 * (not the SDK's mock) that records every request, how many were in flight when it arrived, and whether
 * the client closed it before it was answered (an abort on the wire).
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  APIUserAbortError,
  BadRequestError,
  type ClientOptions,
  DeliveryClient,
  PaginationLimitError,
  RequestValidationError,
  type Task,
  type TaskPage,
} from '../../../src/index.js';
import { DEFAULT_LIST_CONCURRENCY } from '../../../src/resources/task-list/page.js';
import { outputOf } from '../../support/process-output.js';
import { ROOT } from '../../support/root.js';

/** One request the server received. */
interface Served {
  readonly page: number;
  readonly query: Record<string, string>;
  /** Requests received and not yet finished when this one arrived, itself included. */
  readonly inFlightAtArrival: number;
  /** Order of arrival, from 0. */
  readonly index: number;
  /** Order in which it was answered, when it was. */
  answeredAs?: number;
  /** The client closed the connection before the answer was sent. */
  closedUnanswered: boolean;
  finished: boolean;
}

/**
 * How to answer one request: once `until` settles (if given), after `delayMs`, a status and body (default:
 * the page), or never.
 */
type Answer =
  | 'hold'
  | {
      until?: Promise<unknown>;
      delayMs?: number;
      status?: number;
      headers?: Record<string, string>;
      body?: unknown;
      destroy?: boolean;
    };

interface PageServer {
  readonly url: string;
  /** Task ids, newest first (the default order of `GET tasks`); tests insert at the front. */
  readonly ids: string[];
  readonly requests: Served[];
  /** Called at each request's arrival: decides the answer. The page's body is built when it is sent. */
  answer: (served: Served, count: { forPage: number }) => Answer;
  /** Runs just before a page's body is built (to change the listing between serves). */
  beforeServe: (served: Served) => void;
  /** Overrides the page envelope a request gets (after it is built from `ids`). */
  envelope: (served: Served, built: PageEnvelope) => PageEnvelope;
  inFlight(): number;
  /** Resolves once every request has finished or been closed, or rejects after `ms`. */
  settled(ms: number): Promise<void>;
  close(): Promise<void>;
}

interface PageEnvelope {
  tasks: Array<Record<string, unknown>>;
  page: number;
  limit: number;
  totalPages: number;
  total: number;
}

const servers: PageServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function taskOf(id: string): Record<string, unknown> {
  return { id, orderNumber: `ORD-${id}`, status: 'pending', createdAt: new Date().toISOString() };
}

async function startPageServer(taskCount: number): Promise<PageServer> {
  const ids = Array.from(
    { length: taskCount },
    (_, index) => `t${String(taskCount - 1 - index).padStart(4, '0')}`,
  );
  const requests: Served[] = [];
  const sockets = new Set<Socket>();
  let open = 0;
  let answered = 0;
  const perPage = new Map<number, number>();
  const state: PageServer = {
    url: '',
    ids,
    requests,
    answer: () => ({}),
    beforeServe: () => {},
    envelope: (_served, built) => built,
    inFlight: () => open,
    settled: async (ms) => {
      const until = Date.now() + ms;
      while (requests.some((served) => !served.finished)) {
        if (Date.now() > until) throw new Error(`requests still open after ${ms} ms`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const serve = (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const query = Object.fromEntries(url.searchParams);
    const page = Number(query.page ?? '1');
    open++;
    const served: Served = {
      page,
      query,
      inFlightAtArrival: open,
      index: requests.length,
      closedUnanswered: false,
      finished: false,
    };
    requests.push(served);
    const count = (perPage.get(page) ?? 0) + 1;
    perPage.set(page, count);
    let timer: NodeJS.Timeout | undefined;
    response.once('close', () => {
      clearTimeout(timer);
      open--;
      served.finished = true;
      if (!response.writableFinished) served.closedUnanswered = true;
    });
    if (request.method !== 'GET') {
      // Creates (the reconciliation test): an ambiguous failure, so the SDK looks the order up.
      response.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"unavailable"}');
      return;
    }
    const answer = state.answer(served, { forPage: count });
    if (answer === 'hold') return;
    const send = () => {
      if (answer.destroy) {
        response.destroy();
        return;
      }
      state.beforeServe(served);
      const limit = Number(query.limit ?? '10');
      const start = (page - 1) * limit;
      const built: PageEnvelope = {
        tasks: ids.slice(start, start + limit).map(taskOf),
        page,
        limit,
        totalPages: Math.ceil(ids.length / limit),
        total: ids.length,
      };
      const body = JSON.stringify(answer.body ?? state.envelope(served, built));
      served.answeredAs = answered++;
      response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      response.end(body);
    };
    const later = () => {
      if (!served.finished) timer = setTimeout(send, answer.delayMs ?? 0);
    };
    if (answer.until === undefined) later();
    else void answer.until.then(later);
  };
  const server = createServer(serve);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const started: PageServer = Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest`,
  });
  servers.push(started);
  return started;
}

function clientOf(server: PageServer, overrides: ClientOptions = {}): DeliveryClient {
  return new DeliveryClient({
    apiKey: 'test-key',
    sellerId: 'seller-1',
    baseUrl: server.url,
    logLevel: 'off',
    ...overrides,
  });
}

const pagesOf = (server: PageServer) => server.requests.map((served) => served.page);

/**
 * A gate for answers: `gather(count)` settles once `count` requests are in flight at once (releasing every
 * request waiting on it), or after `capMs`. So a walk's concurrency shows as requests in flight at once
 * even when a loaded machine sends the next request after an answer came back; a walk that sends fewer
 * than `count` at once shows fewer (each wave waits `capMs`), one that sends more shows more.
 */
function gatherer(server: PageServer, capMs = 1000): (count: number) => Promise<void> {
  const waiting: (() => void)[] = [];
  return (count) => {
    if (server.inFlight() >= count) {
      for (const release of waiting.splice(0)) release();
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      waiting.push(resolve);
      setTimeout(resolve, capMs);
    });
  };
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The server's request count once it reached `count` (waited for, 10 s at most: a loaded machine is slow
 * to send them) and 100 ms more passed: a request beyond the bound shows as a larger count.
 */
async function requestsOnceAt(server: PageServer, count: number): Promise<number> {
  const giveUpAt = Date.now() + 10_000;
  while (server.requests.length < count && Date.now() < giveUpAt) await sleep(5);
  await sleep(100);
  return server.requests.length;
}
/** The ids of pages `from`…`to` of a server of `count` tasks, 10 per page, as first served. */
const expectedIds = (count: number, from = 1, to = Math.ceil(count / 10)) =>
  Array.from({ length: count }, (_, index) => `t${String(count - 1 - index).padStart(4, '0')}`).slice(
    (from - 1) * 10,
    to * 10,
  );

describe('tasks.list iteration: concurrent pages', () => {
  it('requests the pages after the first at once, at most `concurrency` in flight', async () => {
    const server = await startPageServer(120);
    const gather = gatherer(server);
    server.answer = (served) => (served.page === 1 ? {} : { until: gather(4), delayMs: 10 });
    const tasks = await clientOf(server).tasks.list({}, { concurrency: 4 }).toArray();
    expect(tasks.map((task) => task.id)).toEqual(expectedIds(120));
    expect(pagesOf(server).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(Math.max(...server.requests.map((served) => served.inFlightAtArrival))).toBe(4);
    // Page 1 alone first: its totalPages says what to request.
    expect(server.requests[0]?.inFlightAtArrival).toBe(1);
    expect(server.requests[1]?.index).toBe(1);
  });

  it(`requests up to ${DEFAULT_LIST_CONCURRENCY} pages at once by default`, async () => {
    const server = await startPageServer(300);
    const gather = gatherer(server);
    server.answer = (served) =>
      served.page === 1 ? {} : { until: gather(DEFAULT_LIST_CONCURRENCY), delayMs: 10 };
    expect(await clientOf(server).tasks.list().toArray()).toHaveLength(300);
    expect(Math.max(...server.requests.map((served) => served.inFlightAtArrival))).toBe(
      DEFAULT_LIST_CONCURRENCY,
    );
    expect(server.requests).toHaveLength(30);
  });

  it('yields in page order when later pages are answered first', async () => {
    const server = await startPageServer(80);
    // Page 8 answers first, page 2 last: each page of 2…7 once the next was answered (2 s at most), so
    // the order holds however late the requests arrive on a loaded machine.
    const served = new Map<number, () => void>();
    const answeredAfter = (page: number) =>
      new Promise<void>((resolve) => {
        served.set(page, resolve);
        setTimeout(resolve, 2000);
      });
    const nextAnswered = new Map([2, 3, 4, 5, 6, 7].map((page) => [page, answeredAfter(page + 1)]));
    server.beforeServe = (request) => served.get(request.page)?.();
    server.answer = (request) =>
      request.page === 1
        ? {}
        : { delayMs: 5, ...(request.page < 8 ? { until: nextAnswered.get(request.page) } : {}) };
    const pages: number[] = [];
    const ids: string[] = [];
    for await (const page of clientOf(server).tasks.list({}, { concurrency: 8 }).byPage()) {
      pages.push(page.page);
      ids.push(...page.tasks.map((task) => task.id ?? ''));
    }
    const answerOrder = [...server.requests]
      .sort((a, b) => (a.answeredAs ?? 0) - (b.answeredAs ?? 0))
      .map((served) => served.page);
    expect(answerOrder).toEqual([1, 8, 7, 6, 5, 4, 3, 2]);
    expect(pages).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(ids).toEqual(expectedIds(80));
  });

  it('reads one page after another with concurrency: 1', async () => {
    const server = await startPageServer(50);
    server.answer = () => ({ delayMs: 5 });
    expect(await clientOf(server).tasks.list({}, { concurrency: 1 }).toArray()).toHaveLength(50);
    expect(pagesOf(server)).toEqual([1, 2, 3, 4, 5]);
    expect(server.requests.every((served) => served.inFlightAtArrival === 1)).toBe(true);
  });

  it('rejects a concurrency or maxPages out of range, naming the option, and sends nothing', async () => {
    const server = await startPageServer(30);
    const client = clientOf(server);
    for (const concurrency of [
      0,
      -1,
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      1001,
      '4' as unknown as number,
    ]) {
      const listing = client.tasks.list({}, { concurrency });
      const error = await listing.toArray().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual([
        'options.concurrency',
      ]);
      await expect(listing).rejects.toBeInstanceOf(RequestValidationError);
    }
    for (const maxPages of [0, 2.5, -3, Number.NaN]) {
      const error = await client.tasks
        .list({}, { maxPages })
        .toArray()
        .catch((caught: unknown) => caught);
      expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual([
        'options.maxPages',
      ]);
    }
    expect(server.requests).toHaveLength(0);
    expect(
      await client.tasks.list({}, { concurrency: 1000, maxPages: Number.POSITIVE_INFINITY }).toArray(),
    ).toHaveLength(30);
  });
});

describe('tasks.list iteration: stopping', () => {
  it('aborts the pages in flight on break, on the wire, and sends nothing more', async () => {
    const server = await startPageServer(300);
    server.answer = (served) => (served.page === 1 ? {} : 'hold');
    for await (const task of clientOf(server).tasks.list({}, { concurrency: 6 })) {
      expect(task.id).toBe('t0299');
      // Let the requests ahead reach the server, so the abort has something to cut.
      while (server.requests.length < 7) await sleep(5);
      break;
    }
    await server.settled(2000);
    expect(pagesOf(server).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(server.requests.slice(1).every((served) => served.closedUnanswered)).toBe(true);
    await sleep(150);
    expect(server.requests).toHaveLength(7);
  });

  it("aborts them when the iterator's return() is called", async () => {
    const server = await startPageServer(100);
    server.answer = (served) => (served.page === 1 ? {} : 'hold');
    const pages = clientOf(server).tasks.list({}, { concurrency: 3 }).byPage();
    expect((await pages.next()).value).toMatchObject({ page: 1 });
    while (server.requests.length < 4) await sleep(5);
    await pages.return();
    await server.settled(2000);
    expect(pagesOf(server).sort((a, b) => a - b)).toEqual([1, 2, 3, 4]);
    const closed = server.requests.filter((served) => served.closedUnanswered).map((served) => served.page);
    expect(closed.sort((a, b) => a - b)).toEqual([2, 3, 4]);
    await sleep(150);
    expect(server.requests).toHaveLength(4);
  });

  it('rejects at the failed page, after the pages before it, and aborts the pages after it', async () => {
    const server = await startPageServer(100);
    const seen = (done: () => boolean) =>
      (async () => {
        while (!done()) await sleep(2);
      })();
    const served = (page: number) => server.requests.find((request) => request.page === page);
    server.answer = (request) => {
      // Page 3 fails once the pages after it are on the wire; page 2 is answered after that failure.
      if (request.page === 2) return { until: seen(() => served(3)?.answeredAs !== undefined), delayMs: 90 };
      if (request.page === 3) {
        const after = seen(() => [4, 5, 6].every((page) => served(page) !== undefined));
        return { until: after, status: 400, body: { message: 'bad page' } };
      }
      return request.page === 1 ? {} : 'hold';
    };
    const ids: string[] = [];
    let failure: unknown;
    try {
      for await (const task of clientOf(server).tasks.list({}, { concurrency: 5 })) ids.push(task.id ?? '');
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(BadRequestError);
    expect(ids).toEqual(expectedIds(100, 1, 2));
    await server.settled(2000);
    // Pages 4-6 were on the wire when page 3 failed; a loaded machine may hand page 2 over (freeing a slot
    // for page 7) before it reads page 3's failure: each page past 3 is aborted, none past 2 + 5.
    const past = pagesOf(server).filter((page) => page > 3);
    expect(
      pagesOf(server)
        .filter((page) => page <= 3)
        .sort(),
    ).toEqual([1, 2, 3]);
    expect(past).toEqual(expect.arrayContaining([4, 5, 6]));
    expect(Math.max(...past)).toBeLessThanOrEqual(2 + 5);
    const closed = server.requests
      .filter((request) => request.closedUnanswered)
      .map((request) => request.page);
    expect(closed.sort((a, b) => a - b)).toEqual(past.sort((a, b) => a - b));
    expect(served(2)?.closedUnanswered).toBe(false);
    const requested = server.requests.length;
    await sleep(100);
    expect(server.requests).toHaveLength(requested);
  });

  it("aborts the walk's requests when the caller's signal fires", async () => {
    const server = await startPageServer(100);
    server.answer = (served) => (served.page === 1 ? {} : 'hold');
    const controller = new AbortController();
    const ids: string[] = [];
    const walk = (async () => {
      for await (const task of clientOf(server).tasks.list(
        {},
        { concurrency: 4, signal: controller.signal },
      )) {
        ids.push(task.id ?? '');
      }
    })();
    while (server.requests.length < 5) await sleep(5);
    controller.abort(new Error('shutting down'));
    await expect(walk).rejects.toBeInstanceOf(APIUserAbortError);
    expect(ids).toHaveLength(10);
    await server.settled(2000);
    expect(server.requests.slice(1).every((served) => served.closedUnanswered)).toBe(true);
    await sleep(100);
    expect(server.requests).toHaveLength(5);
  });

  it('ends at an empty page even when more are reported, aborting the pages requested past it', async () => {
    const server = await startPageServer(100);
    server.answer = (served) => (served.page <= 3 ? { delayMs: served.page === 3 ? 0 : 30 } : 'hold');
    server.envelope = (served, built) => (served.page === 3 ? { ...built, tasks: [] } : built);
    const ids = (await clientOf(server).tasks.list({}, { concurrency: 5 }).toArray()).map((task) => task.id);
    expect(ids).toEqual(expectedIds(100, 1, 2));
    await server.settled(2000);
    const closed = server.requests.filter((served) => served.closedUnanswered).map((served) => served.page);
    // Pages 2–6 go out after page 1. Page 7 too when page 2 is handed over before the empty page 3 is read
    // (a busy machine): 5 beyond the last page handed over, within the bound. Every page past 3 is aborted.
    const past = pagesOf(server).filter((page) => page > 3);
    expect(closed.sort((a, b) => a - b)).toEqual(past.sort((a, b) => a - b));
    expect(past).toEqual(expect.arrayContaining([4, 5, 6]));
    expect(Math.max(...past)).toBeLessThanOrEqual(2 + 5);
  });

  it('ends at a page that reports itself the last, aborting the pages requested past it', async () => {
    const server = await startPageServer(60);
    server.answer = (served) => (served.page <= 3 ? { delayMs: 40 } : 'hold');
    // Page 1 says 6 pages; by the time page 3 is served the listing reports 3.
    server.envelope = (served, built) => (served.page >= 2 ? { ...built, totalPages: 3, total: 30 } : built);
    const ids = (await clientOf(server).tasks.list({}, { concurrency: 8 }).toArray()).map((task) => task.id);
    expect(ids).toEqual(expectedIds(60, 1, 3));
    await server.settled(2000);
    const closed = server.requests.filter((served) => served.closedUnanswered).map((served) => served.page);
    expect(closed.sort((a, b) => a - b)).toEqual([4, 5, 6]);
  });

  it('throws PaginationLimitError after maxPages, having requested no page past the cap', async () => {
    const server = await startPageServer(1000);
    // Pages held 200 ms, so pages 2–5 overlap at the server even from a client slowed by a busy machine
    // (at 20 ms, one run with both cores busy saw at most 3 in flight).
    server.answer = () => ({ delayMs: 200 });
    const ids: string[] = [];
    const error = await (async () => {
      for await (const task of clientOf(server).tasks.list({}, { maxPages: 5 })) ids.push(task.id ?? '');
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PaginationLimitError);
    expect(ids).toEqual(expectedIds(1000, 1, 5));
    expect(pagesOf(server).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
    expect(Math.max(...server.requests.map((served) => served.inFlightAtArrival))).toBe(4);
  });
});

describe('tasks.list iteration: bounded ahead of the consumer', () => {
  it('never requests more than `concurrency` pages beyond the pages handed over', async () => {
    const server = await startPageServer(400);
    const pages = clientOf(server).tasks.list({}, { concurrency: 5 }).byPage();
    const read: TaskPage[] = [];
    for (let index = 0; index < 3; index++) read.push((await pages.next()).value as TaskPage);
    expect(await requestsOnceAt(server, 3 + 5)).toBe(3 + 5);
    for (let index = 0; index < 2; index++) read.push((await pages.next()).value as TaskPage);
    expect(await requestsOnceAt(server, 5 + 5)).toBe(5 + 5);
    expect(read.map((page) => page.page)).toEqual([1, 2, 3, 4, 5]);
    await pages.return();
  });

  it('counts a page as handed over once its first task is, when iterating tasks', async () => {
    const server = await startPageServer(400);
    const tasks = clientOf(server).tasks.list({}, { concurrency: 7 })[Symbol.asyncIterator]();
    expect((await tasks.next()).value).toMatchObject({ id: 't0399' });
    expect(await requestsOnceAt(server, 1 + 7)).toBe(1 + 7);
    for (let index = 0; index < 10; index++) await tasks.next();
    expect(await requestsOnceAt(server, 2 + 7)).toBe(2 + 7);
    await tasks.return();
  });

  it('toArray({ max }) requests only the pages it needs', async () => {
    const server = await startPageServer(400);
    server.answer = () => ({ delayMs: 10 });
    expect(await clientOf(server).tasks.list({}, { concurrency: 16 }).toArray({ max: 35 })).toHaveLength(35);
    expect(pagesOf(server).sort((a, b) => a - b)).toEqual([1, 2, 3, 4]);
    expect(server.requests.some((served) => served.closedUnanswered)).toBe(false);
  });
});

describe('tasks.list iteration: rate limits', () => {
  /** Max in flight seen by requests for pages in [from, to]. */
  const peak = (server: PageServer, from: number, to: number) =>
    Math.max(
      ...server.requests
        .filter((served) => served.page >= from && served.page <= to)
        .map((served) => served.inFlightAtArrival),
    );

  it('halves the concurrency for the rest of the walk after a 429', async () => {
    const server = await startPageServer(400);
    const gather = gatherer(server);
    server.answer = (served, { forPage }) => {
      if (served.page === 1) return {};
      const until = gather(served.page <= 9 && forPage === 1 ? 8 : 4);
      return served.page === 4 && forPage === 1
        ? { until, status: 429, headers: { 'retry-after-ms': '0' }, body: { message: 'slow down' } }
        : { until, delayMs: 10 };
    };
    const ids = (await clientOf(server).tasks.list({}, { concurrency: 8 }).toArray()).map((task) => task.id);
    expect(ids).toEqual(expectedIds(400));
    expect(peak(server, 2, 9)).toBe(8);
    expect(peak(server, 10, 40)).toBe(4);
    expect(server.requests.filter((served) => served.page === 4)).toHaveLength(2);
  });

  it('counts 429s on requests sent together as one signal, and halves again on a later one', async () => {
    const server = await startPageServer(400);
    const gather = gatherer(server);
    server.answer = (served, { forPage }) => {
      if (served.page === 1) return {};
      const until = gather(served.page <= 9 && forPage === 1 ? 8 : served.page <= 19 ? 4 : 2);
      return [3, 4, 5, 16].includes(served.page) && forPage === 1
        ? { until, status: 429, headers: { 'retry-after-ms': '0' }, body: { message: 'slow down' } }
        : { until, delayMs: 10 };
    };
    expect(await clientOf(server).tasks.list({}, { concurrency: 8 }).toArray()).toHaveLength(400);
    expect(peak(server, 2, 9)).toBe(8);
    // Three 429s from the first wave: 8 → 4 (not 1).
    expect(peak(server, 10, 15)).toBe(4);
    // Page 16 was sent under 4: its 429 halves to 2 for the pages after the ones already in flight.
    expect(peak(server, 22, 40)).toBe(2);
  });
});

describe('tasks.list iteration: shifting pages', () => {
  it('requests each page once and yields each id once while tasks are created at the front', async () => {
    const server = await startPageServer(400);
    // Pages are served out of order, and each serve first adds a new task at the front (newest first).
    server.answer = (served) => ({ delayMs: served.page === 1 ? 0 : ((served.page * 7) % 5) * 6 });
    let created = 0;
    server.beforeServe = () => {
      server.ids.unshift(`new${created++}`);
    };
    const ids = (await clientOf(server).tasks.list({}, { concurrency: 8 }).toArray()).map(
      (task) => task.id ?? '',
    );
    expect(new Set(ids).size).toBe(ids.length);
    const pages = pagesOf(server).sort((a, b) => a - b);
    expect(pages).toEqual(Array.from({ length: pages.length }, (_, index) => index + 1));
  });

  it('requests each page once and misses nothing while tasks are added at the end (oldest first)', async () => {
    const server = await startPageServer(400);
    server.answer = (served) => ({ delayMs: served.page === 1 ? 0 : ((served.page * 7) % 5) * 6 });
    let created = 0;
    server.beforeServe = () => {
      server.ids.push(`new${String(created++).padStart(4, '0')}`);
    };
    const ids = (await clientOf(server).tasks.list({}, { concurrency: 8 }).toArray()).map(
      (task) => task.id ?? '',
    );
    // Read to the listing's new end: every task, each once, in order.
    expect(ids).toEqual(server.ids.slice(0, ids.length));
    expect(ids.slice(0, 400)).toEqual(expectedIds(400));
    const pages = pagesOf(server).sort((a, b) => a - b);
    expect(pages).toEqual(Array.from({ length: Math.ceil(ids.length / 10) }, (_, index) => index + 1));
  });

  it('reads the page before again when tasks ahead left the listing, saving the tasks that moved onto it', async () => {
    const server = await startPageServer(100);
    let removed: string[] = [];
    server.beforeServe = (served) => {
      // Page 1 is read; before page 3 is served, the 4 newest tasks leave the listing: t0079…t0076 of
      // page 3 move onto page 2, which was served already.
      if (served.page === 3 && removed.length === 0) removed = server.ids.splice(0, 4);
    };
    const ids = (await clientOf(server).tasks.list({}, { concurrency: 1 }).toArray()).map(
      (task) => task.id ?? '',
    );
    expect(removed).toHaveLength(4);
    expect(ids).toEqual(expectedIds(100));
    expect(pagesOf(server)).toEqual([1, 2, 3, 2, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('requests the pages a later page reports when the listing grows during the walk', async () => {
    const server = await startPageServer(30);
    server.answer = (served) => ({ delayMs: served.page === 1 ? 0 : 20 });
    server.beforeServe = (served) => {
      if (served.page === 1) for (let index = 0; index < 25; index++) server.ids.push(`old${index}`);
    };
    // Page 1 is built after the growth here, so hide it from page 1's answer: it reports 3 pages.
    server.envelope = (served, built) => (served.page === 1 ? { ...built, totalPages: 3, total: 30 } : built);
    const ids = (await clientOf(server).tasks.list({}, { concurrency: 8 }).toArray()).map((task) => task.id);
    expect(ids).toHaveLength(55);
    expect(pagesOf(server).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

describe('reconciliation of creates', () => {
  it('looks the order up one page at a time, newest first, every page counted against its 10 list requests', async () => {
    const server = await startPageServer(60);
    server.ids.splice(37, 0, 'created');
    server.answer = () => ({ delayMs: 30 });
    const original = server.envelope;
    server.envelope = (served, built) => {
      const page = original(served, built);
      return {
        ...page,
        tasks: page.tasks.map((task) => (task.id === 'created' ? { ...task, orderNumber: 'ORD-77' } : task)),
      };
    };
    const client = clientOf(server, { reconciliation: { checks: 1, intervalMs: 0 }, maxRetries: 0 });
    const task: Task = await client.tasks.create({
      orderNumber: 'ORD-77',
      deliveryLocation: { latitude: 29.3339, longitude: 48.0761 },
    });
    expect(task.id).toBe('created');
    const lists = server.requests.filter((served) => served.query.sortBy === 'createdAt');
    expect(lists.map((served) => served.page).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(
      lists.every((served) => served.query.sortOrder === '-1' && served.query.search === '^ORD-77$'),
    ).toBe(true);
    expect(Math.max(...lists.map((served) => served.inFlightAtArrival))).toBe(1);
  });
});

describe('iteration memory', () => {
  /** Runs an ES module in a child Node with --expose-gc and tsx; returns the JSON of its last line. */
  async function runWithGc(script: string): Promise<Record<string, number>> {
    const { code, stdout, stderr } = await outputOf(
      spawn(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    expect(code, stderr).toBe(0);
    return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Record<string, number>;
  }

  /** Heap used after gc, once FinalizationRegistry callbacks have had their turn (they run in a task). */
  const heapAfterGc = `
    const heap = async () => {
      for (let round = 0; round < 2; round++) { gc(); await new Promise((resolve) => setTimeout(resolve, 10)); }
      gc();
      return process.memoryUsage().heapUsed;
    };
  `;

  it('iterates 1,000,000 tasks with under 10 MB of heap growth (the walk and its dedupe)', async () => {
    const { count, peak } = await runWithGc(`
      import { TaskListPromise } from './src/resources/task-list/list-promise.ts';
      import { TaskPage } from './src/resources/task-list/page.ts';
      ${heapAfterGc}
      const total = 1_000_000, limit = 10, totalPages = total / limit;
      const fetchPage = async (page) => {
        const tasks = [];
        for (let index = (page - 1) * limit; index < page * limit; index++) tasks.push({ id: 'task-' + index.toString(16).padStart(12, '0') });
        return new TaskPage({ tasks, page, limit, totalPages, total }, fetchPage);
      };
      const base = await heap();
      let count = 0, peak = 0;
      for await (const task of new TaskListPromise(fetchPage, 1, { maxPages: Infinity, concurrency: 16 })) {
        if (++count % 100_000 === 0) peak = Math.max(peak, (await heap()) - base);
      }
      console.log(JSON.stringify({ count, peak }));
    `);
    expect(count).toBe(1_000_000);
    expect(peak).toBeLessThan(10 * 1024 * 1024);
  }, 120_000);

  it('holds no request behind it through the whole client, with a fetch that answers without I/O', async () => {
    // Such a fetch never lets the microtask queue drain, and JavaScript keeps WeakRef targets (fetch's
    // Request has one) until it does: the walk must give it a turn now and then. Read right after a gc
    // with no turn in between, the heap holds a bounded backlog (objects awaiting FinalizationRegistry
    // callbacks) that must stay flat, not grow with the tasks read.
    const { count, first, last, max } = await runWithGc(`
      import { DeliveryClient } from './src/index.ts';
      ${heapAfterGc}
      const total = 200_000, limit = 10, totalPages = total / limit;
      const fetch = async (input) => {
        const page = Number(new URL(input instanceof Request ? input.url : String(input)).searchParams.get('page'));
        const tasks = [];
        for (let index = (page - 1) * limit; index < page * limit; index++) tasks.push({ id: 'task-' + index, status: 'pending' });
        return new Response(JSON.stringify({ tasks, page, limit, totalPages, total }), { headers: { 'content-type': 'application/json' } });
      };
      const client = new DeliveryClient({ apiKey: 'k', sellerId: 's', baseUrl: 'https://delivery.test/', fetch, logLevel: 'off' });
      await client.tasks.list().toArray({ max: 25 });
      const base = await heap();
      let count = 0;
      const samples = [];
      for await (const task of client.tasks.list({}, { maxPages: Infinity })) {
        if (++count % 20_000 === 0) { gc(); samples.push(process.memoryUsage().heapUsed - base); }
      }
      console.log(JSON.stringify({ count, first: samples[0], last: samples.at(-1), max: Math.max(...samples) }));
    `);
    expect(count).toBe(200_000);
    // From 20 000 tasks read to 200 000: flat (without the turns it grows by about 70 MB). The bound is the
    // issue's goal for a whole 1 M-task walk (10 MB); idle it reads about 2 MB, under a loaded test run 3.9.
    expect((last ?? 0) - (first ?? 0)).toBeLessThan(10 * 1024 * 1024);
    expect(max).toBeLessThan(20 * 1024 * 1024);
  }, 120_000);
});
