/**
 * OpenTelemetry spans (issue 10 §3), collected with the OpenTelemetry SDK's in-memory exporter from a
 * provider registered the way an application registers one.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/index.js';
import { startSpan } from '../../src/internal/tracing.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { orderParams, useMockService } from '../support/mock-service.js';
import { webhookBody } from '../webhooks/fixtures.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const { mock, client } = useMockService({ account: { type: 'wallet', balance: 500 } });

function spans(name?: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => name === undefined || span.name === name);
}

describe('without a registered tracer provider', () => {
  it('starts no span and calls still work', async () => {
    expect(startSpan('tasks.retrieve', SpanKind.CLIENT, () => ({}))).toBeUndefined();
    await expect(client().wallet.retrieveBalance()).resolves.toEqual({ walletAmount: 500 });
  });
});

describe('with a registered tracer provider', () => {
  beforeAll(() => {
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
  });
  afterEach(() => exporter.reset());
  afterAll(async () => {
    trace.disable();
    await provider.shutdown();
  });

  it('makes each call a CLIENT span named by operation, with method, url.template, status, retries, server', async () => {
    const sdk = client();
    const task = await sdk.tasks.create(orderParams('TR-1'));
    exporter.reset();
    await sdk.tasks.retrieve(task.id ?? '');
    const [span] = spans();
    expect(spans()).toHaveLength(1);
    expect(span?.name).toBe('tasks.retrieve');
    expect(span?.kind).toBe(SpanKind.CLIENT);
    expect(span?.instrumentationScope.name).toBe('delivery-task-sdk');
    expect(span?.attributes).toEqual({
      'http.request.method': 'GET',
      'url.template': '/tasks/{id}',
      'server.address': 'delivery.test',
      'server.port': 443,
      'http.response.status_code': 200,
      'delivery.retry_count': 0,
    });
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('names every operation and its URL template', async () => {
    const sdk = client();
    await sdk.tasks.estimate({
      from: { latitude: 29.37, longitude: 47.97 },
      to: { latitude: 29.33, longitude: 48.07 },
    });
    await sdk.branches.list();
    await sdk.wallet.retrieveBalance();
    await sdk.wallet.topUp({ amount: 10 });
    await sdk.tasks.list();
    expect(spans().map((span) => [span.name, span.attributes['url.template']])).toEqual([
      ['tasks.estimate', '/tasks/estimate'],
      ['branches.list', '/tasks/branches'],
      ['wallet.retrieveBalance', '/tasks/wallet-balance'],
      ['wallet.topUp', '/tasks/wallet-topup'],
      ['tasks.list', '/tasks'],
    ]);
  });

  it('records retries as events and counts them', async () => {
    mock.inject({ operation: 'wallet.retrieveBalance', kind: 'status', status: 503, times: 2 });
    await client({ maxRetries: 3 }).wallet.retrieveBalance();
    const [span] = spans('wallet.retrieveBalance');
    expect(span?.attributes['delivery.retry_count']).toBe(2);
    expect(span?.attributes['http.response.status_code']).toBe(200);
    const retries = span?.events.filter((event) => event.name === 'delivery.retry') ?? [];
    expect(retries.map((event) => event.attributes?.['delivery.retry_count'])).toEqual([1, 2]);
    expect(retries[0]?.attributes?.['http.response.status_code']).toBe(503);
  });

  it('sets status ERROR and records the exception on a failure', async () => {
    await expect(client().tasks.retrieve('missing-task')).rejects.toBeInstanceOf(NotFoundError);
    const [span] = spans('tasks.retrieve');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['http.response.status_code']).toBe(404);
    expect(span?.attributes['error.type']).toBe('NotFoundError');
    const exception = span?.events.find((event) => event.name === 'exception');
    expect(exception?.attributes?.['exception.type']).toBe('NotFoundError');
    expect(String(exception?.attributes?.['exception.message'])).toContain('404');
  });

  it('puts the order number on creates and reconciliation steps as events', async () => {
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop', times: 1 });
    const task = await client().tasks.create(orderParams('TR-2'));
    expect(task.orderNumber).toBe('TR-2');
    const [span] = spans('tasks.create');
    expect(spans('tasks.create')).toHaveLength(1);
    expect(span?.kind).toBe(SpanKind.CLIENT);
    expect(span?.attributes['delivery.order_number']).toBe('TR-2');
    expect(span?.attributes['url.template']).toBe('/tasks');
    expect(span?.attributes['http.response.status_code']).toBe(200);
    const names = span?.events.map((event) => event.name) ?? [];
    // The lookup before sending (no store: lookupFirst), the POST, then the lookups reconciling it.
    expect(names.slice(0, 2)).toEqual(['delivery.reconciliation.lookup', 'delivery.create.request']);
    expect(span?.events[1]?.attributes?.['error.type']).toBe('APIConnectionError');
    expect(names.slice(2)).toContain('delivery.reconciliation.lookup');
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('gives a create the attributes of every call span, and its order number', async () => {
    await client().tasks.create(orderParams('TR-4'));
    const [span] = spans('tasks.create');
    expect(span?.attributes).toEqual({
      'http.request.method': 'POST',
      'url.template': '/tasks',
      'server.address': 'delivery.test',
      'server.port': 443,
      'http.response.status_code': 200,
      'delivery.retry_count': 0,
      'delivery.order_number': 'TR-4',
    });
  });

  it('records the status of a rejected create on its span, as for any call', async () => {
    mock.inject({ operation: 'tasks.create', kind: 'status', status: 422, times: 1 });
    await expect(client().tasks.create(orderParams('TR-5'))).rejects.toMatchObject({ status: 422 });
    const [span] = spans('tasks.create');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['http.response.status_code']).toBe(422);
    const post = span?.events.find((event) => event.name === 'delivery.create.request');
    expect(span?.attributes['error.type']).toBe(post?.attributes?.['error.type']);
    expect(span?.attributes['error.type']).toBe('UnprocessableEntityError');
  });

  it('never carries the API key or the seller id', async () => {
    const sdk = client();
    await sdk.tasks.create(orderParams('TR-3'));
    await sdk.tasks.retrieve('missing-task').catch(() => undefined);
    mock.inject({ operation: 'tasks.list', kind: 'status', status: 500, times: 1 });
    await sdk.tasks.list().catch(() => undefined);
    const text = JSON.stringify(
      spans().map((span) => ({
        name: span.name,
        attributes: span.attributes,
        events: span.events,
        status: span.status,
      })),
    );
    expect(spans().length).toBeGreaterThanOrEqual(3);
    expect(text).not.toContain(mock.apiKey);
    expect(text).not.toContain(mock.sellerId);
  });

  it('makes webhook processing (onEvent) a CONSUMER span, ERROR when onEvent throws', async () => {
    let fail = false;
    const handler = createWebhookHandler({
      onEvent: () => {
        if (fail) throw new Error('onEvent failed');
      },
      logLevel: 'off',
    });
    const deliver = (taskId: string) =>
      handler.fetch(
        new Request('https://shop.example.test/webhooks', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(webhookBody(taskId, 'accepted')),
        }),
      );
    await deliver('wh-1');
    await handler.idle();
    fail = true;
    await deliver('wh-2');
    await handler.idle();
    await expect.poll(() => spans('webhook.process').length).toBe(2);
    const [ok, failed] = spans('webhook.process');
    expect(ok?.kind).toBe(SpanKind.CONSUMER);
    expect(ok?.attributes['delivery.task_id']).toBe('wh-1');
    expect(ok?.status.code).toBe(SpanStatusCode.UNSET);
    expect(failed?.status.code).toBe(SpanStatusCode.ERROR);
    expect(
      failed?.events.find((event) => event.name === 'exception')?.attributes?.['exception.message'],
    ).toBe('onEvent failed');
  });
});
