/**
 * The webhook handler's waits on the service end by the deadlines the README gives them ("Deadlines and
 * bounds", "Catching lost events"): a confirming `GET tasks/{id}` by the client's `totalTimeout`, or by
 * its `timeout` × attempts plus the backoff between them; `sync()` by the client's `totalTimeout` per
 * page; `eventTimeoutMs` also when the store holding the task's lease stops answering. The service is a
 * real node:http server on 127.0.0.1 (test/support/hostile-server.ts) that accepts requests and never
 * answers, or answers 503 with a Retry-After of 60 s.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APIConnectionTimeoutError, type ClientOptions, type DeliveryStore } from '../../src/index.js';
import { createWebhookHandler, type WebhookEvent } from '../../src/webhooks/index.js';
import { WebhookEventTimeoutError } from '../../src/webhooks.js';
import {
  hostileClient as clientOf,
  type HostileServer,
  startHostileServer,
} from '../support/hostile-server.js';
import { loopStallMeter } from '../support/loop-stall.js';
import { webhookBody } from '../webhooks/fixtures.js';

/** How far past its deadline a wait may end on a machine shared by several test runs (2 cores), ms. */
const SLACK_MS = 400;
const DEADLINE_MS = 1500;

let hostile: HostileServer;
beforeAll(async () => {
  hostile = await startHostileServer();
});
beforeEach(() => hostile.mock.reset());
afterAll(() => hostile.close());

const hostileClient = (overrides: ClientOptions = {}) => clientOf(hostile, overrides);

const neverAnswer = (_response: ServerResponse) => {};
const unavailable = (response: ServerResponse) => {
  response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '60' }).end('{}');
};

function webhookRequest(body: unknown): Request {
  return new Request('https://shop.example.test/webhooks/delivery', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The first `onError` call of a handler, and when it came (ms after `started`). */
function firstError(started: () => number) {
  let report: (value: { error: unknown; event: WebhookEvent | undefined; ms: number }) => void = () => {};
  const reported = new Promise<{ error: unknown; event: WebhookEvent | undefined; ms: number }>((resolve) => {
    report = resolve;
  });
  return {
    reported,
    onError: (error: unknown, event?: WebhookEvent) =>
      report({ error, event, ms: performance.now() - started() }),
  };
}

/** How long the event loop stalled during the last {@link within}, ms: added to the slack. */
let stalledMs = 0;

/** `promise`, or `undefined` once `ms` have passed; {@link stalledMs} is the loop's stall meanwhile. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = loopStallMeter();
  return Promise.race([
    promise,
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
    }),
  ]).finally(() => {
    clearTimeout(timer);
    stalledMs = stalled();
  });
}

describe('a confirming GET tasks/{id}', () => {
  it.each([
    ['accepts the GET and never answers', neverAnswer],
    ['answers 503 with a Retry-After of 60 s', unavailable],
  ] as const)('ends by the client totalTimeout when the service %s', async (_name, answer) => {
    hostile.use(async (_request, response) => answer(response));
    let started = 0;
    const { reported, onError } = firstError(() => started);
    const called: string[] = [];
    const handler = createWebhookHandler({
      client: hostileClient({ totalTimeout: DEADLINE_MS, maxRetries: 5 }),
      confirm: true,
      onEvent: (event) => void called.push(event.taskId),
      onError,
      logLevel: 'off',
    });
    started = performance.now();
    expect((await handler.fetch(webhookRequest(webhookBody('confirm-1', 'delivered')))).status).toBe(200);
    const failure = await within(reported, DEADLINE_MS + SLACK_MS + 500);
    expect(failure, 'onError not called in time').toBeDefined();
    expect(failure?.ms).toBeLessThanOrEqual(DEADLINE_MS + SLACK_MS + stalledMs);
    expect(failure?.error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(failure?.event?.taskId).toBe('confirm-1');
    expect(called).toEqual([]);
  });

  it('ends by timeout × attempts plus the backoff between them, without a totalTimeout', async () => {
    hostile.use(async (_request, response) => neverAnswer(response));
    let started = 0;
    const { reported, onError } = firstError(() => started);
    const handler = createWebhookHandler({
      client: hostileClient({ timeout: 500, maxRetries: 1 }),
      confirm: true,
      onEvent: () => {},
      onError,
      logLevel: 'off',
    });
    // Two attempts of 0.5 s and one backoff of at most 0.5 s.
    const bound = 2 * 500 + 500;
    started = performance.now();
    await handler.fetch(webhookRequest(webhookBody('confirm-2', 'delivered')));
    const failure = await within(reported, bound + SLACK_MS + 500);
    expect(failure, 'onError not called in time').toBeDefined();
    expect(failure?.ms).toBeLessThanOrEqual(bound + SLACK_MS + stalledMs);
    expect(failure?.error).toBeInstanceOf(APIConnectionTimeoutError);
  });
});

describe('sync()', () => {
  it.each([
    ['accepts each GET tasks and never answers', neverAnswer],
    ['answers 503 with a Retry-After of 60 s', unavailable],
  ] as const)('ends by the client totalTimeout when the service %s', async (_name, answer) => {
    hostile.use(async (_request, response) => answer(response));
    const handler = createWebhookHandler({
      client: hostileClient({ totalTimeout: DEADLINE_MS, maxRetries: 5 }),
      onEvent: () => {},
      logLevel: 'off',
    });
    const started = performance.now();
    const outcome = await within(
      handler.sync().then(
        () => 'resolved' as const,
        (error: unknown) => error,
      ),
      DEADLINE_MS + SLACK_MS + 500,
    );
    expect(outcome, 'sync() still running').toBeDefined();
    expect(performance.now() - started).toBeLessThanOrEqual(DEADLINE_MS + SLACK_MS + stalledMs);
    expect(outcome).toBeInstanceOf(APIConnectionTimeoutError);
  });
});

describe('eventTimeoutMs', () => {
  it('frees the slot of an onEvent that never settles also when the store stops answering', async () => {
    const never = new Promise<never>(() => {});
    const stalled: DeliveryStore = {
      setIfAbsent: () => never,
      get: () => never,
      compareAndSet: () => never,
      delete: () => never,
    };
    let started = 0;
    const { reported, onError } = firstError(() => started);
    const storeTimeoutMs = 200;
    const eventTimeoutMs = 1000;
    const handler = createWebhookHandler({
      store: stalled,
      storeTimeoutMs,
      eventTimeoutMs,
      confirm: false,
      onEvent: () => never,
      onError,
      logLevel: 'off',
    });
    started = performance.now();
    expect((await handler.fetch(webhookRequest(webhookBody('stuck-1', 'accepted')))).status).toBe(200);
    // The store's calls before onEvent time out (one store timeout: then memory is used), then onEvent's own.
    const bound = storeTimeoutMs + eventTimeoutMs;
    const failure = await within(reported, bound + SLACK_MS + 500);
    expect(failure, 'onError not called in time').toBeDefined();
    expect(failure?.ms).toBeLessThanOrEqual(bound + SLACK_MS + stalledMs);
    expect(failure?.error).toBeInstanceOf(WebhookEventTimeoutError);
  });
});
