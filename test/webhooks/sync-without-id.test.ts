/**
 * `sync()` over a listing whose tasks come without an id (every response field is optional in the
 * contract): nothing can be passed to `onEvent` for them, and each such walk says so (drift and a warning
 * line), so a lost final status is never dropped in silence.
 */
import { describe, expect, it } from 'vitest';
import type { SchemaDrift } from '../../src/index.js';
import { createWebhookHandler, type WebhookEvent } from '../../src/webhooks/index.js';
import { clientOf, orderParams, useMockService } from '../support/mock-service.js';

const { mock } = useMockService();

/** The service as it answers `GET tasks` without the tasks' ids. */
const listsWithoutIds: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const response = await fetch(request);
  if (request.method !== 'GET' || !new URL(request.url).pathname.endsWith('/tasks')) return response;
  const body = (await response.json()) as { tasks?: Record<string, unknown>[] };
  return Response.json({
    ...body,
    tasks: (body.tasks ?? []).map(({ id: _id, _id: _mongoId, ...task }) => task),
  });
};

describe('sync() over a listing without task ids', () => {
  it('passes nothing on, reports the missing id as drift and warns with the count', async () => {
    const client = clientOf(mock, { fetch: listsWithoutIds });
    const task = await client.tasks.create(orderParams('ORD-NO-ID'));
    await mock.advance(task.id, 'delivered');
    const events: WebhookEvent[] = [];
    const drifts: SchemaDrift[] = [];
    const warnings: string[] = [];
    const handler = createWebhookHandler({
      client,
      onEvent: (event) => void events.push(event),
      onDrift: (drift) => void drifts.push(drift),
      logger: { debug() {}, info() {}, warn: (line: string) => void warnings.push(line), error() {} },
      logLevel: 'warn',
    });
    const result = await handler.sync();
    expect(result.tasks).toBe(1);
    expect(result.processed).toBe(0);
    expect(events).toEqual([]);
    expect(drifts).toContainEqual({
      operation: 'tasks.list',
      path: 'tasks.*.id',
      expected: 'id',
      received: 'undefined',
      action: 'omitted',
    });
    expect(warnings).toContainEqual(
      expect.stringMatching(/Webhook sync: 1 of 1 tasks walked were listed without a usable id or status/),
    );
  });
});
