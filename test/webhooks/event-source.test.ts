/** `event.source`: where an event came from, a webhook received or a task listed by a sync. */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Task } from '../../src/index.js';
import { syncEventOf } from '../../src/webhooks/event.js';
import type { WebhookEvent } from '../../src/webhooks.js';
import { parseWebhookEvent } from '../../src/webhooks.js';
import { webhookBody } from './fixtures.js';

describe('event.source', () => {
  it("is 'webhook' on a parsed webhook body", () => {
    expect(parseWebhookEvent(webhookBody('t1', 'accepted'))).toMatchObject({
      source: 'webhook',
      confirmed: false,
    });
  });

  it("is 'sync' on a listed task, which counts as confirmed and carries its status as kind and status", () => {
    const task: Task = {
      id: 't2',
      status: 'delivered',
      updatedAt: '2026-11-21T09:45:00.000Z',
      orderNumber: 'ORD-2',
    };
    const readAt = new Date('2026-11-21T10:00:00.000Z');
    const event = syncEventOf(task, readAt);
    expect(event).toMatchObject({
      source: 'sync',
      confirmed: true,
      taskId: 't2',
      kind: 'delivered',
      status: 'delivered',
      receivedAt: readAt,
    });
    expect(event?.task).toBe(task);
    expect(event?.payload).toMatchObject({ id: 't2', status: 'delivered', orderNumber: 'ORD-2' });
  });

  it('makes no sync event of a listed task without a usable id or status', () => {
    const readAt = new Date();
    expect(syncEventOf({ status: 'delivered' }, readAt)).toBeUndefined();
    expect(syncEventOf({ id: 'x'.repeat(129), status: 'delivered' }, readAt)).toBeUndefined();
    expect(syncEventOf({ id: 't3' }, readAt)).toBeUndefined();
  });

  it('types an unconfirmed event as one from a webhook, and a sync event as confirmed', () => {
    expectTypeOf<WebhookEvent['source']>().toEqualTypeOf<'webhook' | 'sync'>();
    expectTypeOf<Extract<WebhookEvent, { confirmed: false }>['source']>().toEqualTypeOf<'webhook'>();
    expectTypeOf<(WebhookEvent & { source: 'sync' })['confirmed']>().toEqualTypeOf<true>();
  });
});
