import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryClient } from '../../src/client.js';
import { createMockDeliveryService, type MockDeliveryService } from '../../src/testing.js';
import { createWebhookHandler, type WebhookEvent, type WebhookHandler } from '../../src/webhooks/index.js';
import { clientOf, orderParams } from '../support/mock-service.js';
import { DELIVERY_EVENTS, postWebhook } from './fixtures.js';
import { type Receiver, startReceiver } from './servers.js';

const LIFECYCLE = DELIVERY_EVENTS;

describe.each(['node:http', 'hono'] as const)(
  'webhooks from the mock service to a receiver on %s',
  (mounting) => {
    const events: WebhookEvent[] = [];
    const errors: unknown[] = [];
    let receiver: Receiver;
    let mock: MockDeliveryService;
    let client: DeliveryClient;
    let handler: WebhookHandler;

    beforeAll(async () => {
      // The mock needs the receiver's URL, and the client must be built after mock.listen() (msw replaces
      // the global fetch the client picks up): the handler reaches the client through a late binding.
      const lazyClient = { tasks: { retrieve: (id: string) => client.tasks.retrieve(id) } };
      handler = createWebhookHandler({
        client: lazyClient,
        confirm: ['delivered', 'cancelled'],
        onEvent: (event) => void events.push(event),
        onError: (error) => void errors.push(error),
      });
      receiver = await startReceiver(mounting, handler);
      mock = createMockDeliveryService({ webhookUrl: receiver.url });
      mock.listen();
      client = clientOf(mock);
    });
    afterEach(() => {
      mock.reset();
      events.length = 0;
      errors.length = 0;
    });
    afterAll(async () => {
      mock.close();
      await receiver.close();
    });

    it('receives one event per status change of advance(), in order, and confirms delivered by GET', async () => {
      const task = await client.tasks.create(orderParams('ORD-WEBHOOK-1'));
      const taskId = task.id ?? '';
      await mock.advance(taskId, 'delivered');
      await handler.idle();

      const deliveries = mock.webhookDeliveries.filter((delivery) => delivery.taskId === taskId);
      expect(deliveries.map((delivery) => delivery.status)).toEqual([...LIFECYCLE]);
      expect(deliveries.every((delivery) => delivery.responseStatus === 200)).toBe(true);
      expect(errors).toEqual([]);
      expect(events.map((event) => [event.kind, event.status, event.confirmed])).toEqual([
        ...LIFECYCLE.slice(0, -1).map((kind) => [kind, kind, false]),
        ['delivered', 'delivered', true],
      ]);
      const delivered = events.at(-1);
      expect(delivered?.taskId).toBe(taskId);
      expect(delivered?.task).toMatchObject({
        id: taskId,
        status: 'delivered',
        orderNumber: 'ORD-WEBHOOK-1',
      });
      expect(delivered?.payload.driver?.completed_at).toEqual(expect.any(String));
      expect(delivered?.payload.estimatedPrice).toMatch(/^\d+\.\d{3}$/);
      expect(delivered?.payload.deliveryLocation).toMatchObject({ lat: 29.3339, lng: 48.0761 });
      const gets = mock.requestsFor('tasks.retrieve');
      expect(gets).toHaveLength(1);
      expect(gets[0]?.path.endsWith(`/tasks/${encodeURIComponent(taskId)}`)).toBe(true);
    });

    it('drops a replayed webhook as a duplicate', async () => {
      const task = await client.tasks.create(orderParams('ORD-WEBHOOK-2'));
      const taskId = task.id ?? '';
      await mock.advance(taskId, 'accepted');
      await handler.idle();
      const replay = mock.webhookDeliveries.find(
        (delivery) => delivery.taskId === taskId && delivery.status === 'accepted',
      );
      const response = await postWebhook(receiver.url, replay?.body);
      expect(response.status).toBe(200);
      await handler.idle();
      expect(events.filter((event) => event.taskId === taskId).map((event) => event.kind)).toEqual([
        'requested',
        'accepted',
      ]);
    });

    it('overrules a forged delivered webhook with the status the service reports', async () => {
      const task = await client.tasks.create(orderParams('ORD-WEBHOOK-3'));
      const taskId = task.id ?? '';
      await mock.advance(taskId, 'enroute');
      await handler.idle();
      const enroute = mock.webhookDeliveries.find(
        (delivery) => delivery.taskId === taskId && delivery.status === 'enroute',
      );
      const forged = { ...enroute?.body, status: 'delivered' };
      const seen = events.length;
      const { duplicates } = handler.stats;
      const gets = mock.requestsFor('tasks.retrieve').length;
      expect((await postWebhook(receiver.url, forged)).status).toBe(200);
      await handler.idle();
      // The GET reads enroute, which onEvent already had: the read is a duplicate, never a delivered.
      expect(mock.requestsFor('tasks.retrieve')).toHaveLength(gets + 1);
      expect(events).toHaveLength(seen);
      expect(handler.stats.duplicates).toBe(duplicates + 1);

      // The genuine delivered webhook still gets through afterwards.
      await mock.advance(taskId, 'delivered');
      await handler.idle();
      expect(events.at(-1)).toMatchObject({
        taskId,
        kind: 'delivered',
        status: 'delivered',
        confirmed: true,
      });
    });
  },
);
