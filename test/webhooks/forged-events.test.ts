/**
 * Forged events never hide real ones (spec § Events item 7: webhooks are unsigned, so anyone who knows
 * the URL can POST any status). For every event kind X forged on a task whose real status is the
 * predecessor of a genuine, confirmable event Y, Y still reaches `onEvent` confirmed. The real status is
 * what the mock service answers to the confirming `GET tasks/{id}` of a real `DeliveryClient`.
 */

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeliveryClient } from '../../src/client.js';
import type { Task } from '../../src/schemas/task.js';
import { createMockDeliveryService, type MockDeliveryService } from '../../src/testing.js';
import {
  createWebhookHandler,
  type WebhookEvent,
  type WebhookHandler,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';
import { clientOf } from '../support/mock-service.js';

import { DELIVERY_EVENTS, gate, postWebhook, webhookBody } from './fixtures.js';
import { type Receiver, startReceiver } from './servers.js';

/** Every event kind a forger can send: the nine statuses and the two webhook-only events (spec § States). */
const EVENT_KINDS = ['pending', ...DELIVERY_EVENTS, 'cancelled', 'rejected', 'failed'] as const;

/**
 * Genuine status changes the mock makes in one `advance` (design doc, transitions): the task's real
 * status before, and the status it moves to.
 */
const STEPS = [
  ['pending', 'requested'],
  ['requested', 'accepted'],
  ['accepted', 'pickedup'],
  ['pickedup', 'enroute'],
  ['enroute', 'delivered'],
  ['pending', 'cancelled'],
  ['requested', 'cancelled'],
  ['accepted', 'cancelled'],
  ['pending', 'rejected'],
  ['requested', 'rejected'],
  ['enroute', 'failed'],
] as const;

const FINAL = ['delivered', 'cancelled', 'rejected', 'failed'];

/** The handler settings under test, and the genuine events they confirm. */
const SETTINGS = [
  {
    title: "the README's settings, confirm: ['delivered', 'cancelled']",
    confirm: ['delivered', 'cancelled'],
    // Final statuses are always confirmed when there is a client.
    steps: STEPS.filter(([, target]) => FINAL.includes(target)),
  },
  { title: 'confirm: true', confirm: true, steps: STEPS },
] as const satisfies readonly {
  title: string;
  confirm: WebhookHandlerOptions['confirm'];
  steps: readonly (readonly [string, string])[];
}[];

describe.each(SETTINGS)('a receiver with a client and $title', ({ confirm, steps }) => {
  const events = new Map<string, WebhookEvent[]>();
  const errors: unknown[] = [];
  let receiver: Receiver;
  let mock: MockDeliveryService;
  let client: DeliveryClient;
  let handler: WebhookHandler;
  let orders = 0;

  beforeAll(async () => {
    // The mock needs the receiver's URL, and the client must be built after mock.listen() (msw replaces
    // the global fetch): the handler reaches the client through a late binding.
    handler = createWebhookHandler({
      client: { tasks: { retrieve: (id: string) => client.tasks.retrieve(id) } },
      confirm,
      onEvent: (event) => {
        events.set(event.taskId, [...(events.get(event.taskId) ?? []), event]);
      },
      onError: (error) => void errors.push(error),
      logLevel: 'off',
    });
    receiver = await startReceiver('node:http', handler);
    mock = createMockDeliveryService({ webhookUrl: receiver.url, account: { type: 'invoice' } });
    mock.listen();
    client = clientOf(mock);
  });
  afterAll(async () => {
    mock.close();
    await receiver.close();
  });

  /** A new task moved (with its genuine webhooks) to `status`. */
  async function taskIn(status: string): Promise<string> {
    orders++;
    const task: Task = await client.tasks.create({
      orderNumber: `ORD-FORGED-${orders}`,
      customerName: 'Fatima Al-Sabah',
      customerNumber: '+96550001234',
      deliveryLocation: {
        latitude: 29.3339,
        longitude: 48.0761,
        fullAddress: ['Block 10, Street 5', 'Salmiya'],
      },
    });
    const taskId = task.id ?? '';
    if (status !== 'pending') await mock.advance(taskId, status);
    await handler.idle();
    return taskId;
  }

  const cases = steps.flatMap(([before, genuine]) =>
    EVENT_KINDS.map((forged) => [forged, before, genuine] as const),
  );

  it.each(cases)(
    'a forged %s on a task in %s does not hide the genuine %s',
    async (forged, before, genuine) => {
      const taskId = await taskIn(before);
      const forgedAnswer = await postWebhook(receiver.url, webhookBody(taskId, forged));
      expect(forgedAnswer.status).toBe(200);
      await handler.idle();
      const seenBefore = events.get(taskId)?.length ?? 0;

      await mock.advance(taskId, genuine);
      await handler.idle();

      const after = (events.get(taskId) ?? []).slice(seenBefore);
      expect(after).toContainEqual(expect.objectContaining({ taskId, status: genuine, confirmed: true }));
      expect(errors).toEqual([]);
    },
  );
});

describe('a receiver with a client and a confirmation in flight', () => {
  it('does not drop the genuine event that arrives while the forged one of the same kind is being confirmed', async () => {
    const answers = [gate(), gate()];
    const reads: Task[] = [
      { id: 't1', status: 'enroute' },
      { id: 't1', status: 'delivered' },
    ];
    let calls = 0;
    const events: WebhookEvent[] = [];
    const handler = createWebhookHandler({
      client: {
        tasks: {
          retrieve: async () => {
            const call = calls++;
            await answers[call]?.promise;
            return reads[call] ?? { id: 't1', status: 'delivered' };
          },
        },
      },
      confirm: ['delivered'],
      onEvent: (event) => void events.push(event),
      logLevel: 'off',
    });
    const send = (status: string) =>
      handler.fetch(
        new Request('https://shop.example.test/webhooks/delivery', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(webhookBody('t1', status)),
        }),
      );
    expect((await send('delivered')).status).toBe(200); // forged: the task is still enroute
    await vi.waitFor(() => expect(calls).toBe(1), { timeout: 10_000, interval: 1 }); // its GET is in flight
    expect((await send('delivered')).status).toBe(200); // genuine: the service just delivered it
    answers[0]?.open(); // the forged one's GET answers what it read before: enroute
    answers[1]?.open();
    await handler.idle();
    expect(events.map((event) => [event.kind, event.status, event.confirmed])).toEqual([
      ['delivered', 'enroute', true],
      ['delivered', 'delivered', true],
    ]);
  });
});

describe('a receiver without a client (the body is all there is)', () => {
  function collecting() {
    const events: WebhookEvent[] = [];
    const handler = createWebhookHandler({ onEvent: (event) => void events.push(event), logLevel: 'off' });
    const send = async (taskId: string, status: string) => {
      await handler.fetch(
        new Request('https://shop.example.test/webhooks/delivery', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(webhookBody(taskId, status)),
        }),
      );
      await handler.idle();
    };
    return { events, handler, send };
  }

  it.each(
    FINAL.flatMap((forged) =>
      FINAL.filter((genuine) => genuine !== forged).map((genuine) => [genuine, forged]),
    ),
  )(
    'passes a genuine %s on after a forged %s: a final status claimed by a body does not end the task',
    async (genuine, forged) => {
      const { events, send } = collecting();
      await send('t1', 'enroute');
      await send('t1', forged ?? '');
      await send('t1', genuine ?? '');
      expect(events.map((event) => [event.kind, event.confirmed])).toEqual([
        ['enroute', false],
        [forged, false],
        [genuine, false],
      ]);
    },
  );

  it('still drops a late status that is not final once a body said the task ended', async () => {
    const { events, handler, send } = collecting();
    await send('t1', 'accepted');
    await send('t1', 'cancelled');
    await send('t1', 'requested');
    await send('t1', 'pickedup');
    await send('t1', 'driver_rated');
    expect(events.map((event) => event.kind)).toEqual(['accepted', 'cancelled']);
    expect(handler.stats.outOfOrder).toBe(3);
  });
});
