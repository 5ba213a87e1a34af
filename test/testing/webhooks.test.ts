import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kwd } from '../../src/kwd.js';
import { createMockDeliveryService, type MockDeliveryService } from '../../src/testing.js';
import { createTask, taskBody } from './calls.js';

interface ReceivedWebhook {
  method: string;
  path: string;
  contentType: string | undefined;
  body: Record<string, unknown>;
}

/** A real webhook receiver on 127.0.0.1; `respond` decides each answer (default 200 at once). */
function startReceiver() {
  const received: ReceivedWebhook[] = [];
  const pending = new Set<ServerResponse>();
  let respond: (response: ServerResponse) => void = (response) => response.end('ok');
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        path: request.url ?? '',
        contentType: request.headers['content-type'],
        body: JSON.parse(text) as Record<string, unknown>,
      });
      pending.add(response);
      response.on('close', () => pending.delete(response));
      respond(response);
    });
  });
  return {
    received,
    server,
    setRespond(next: (response: ServerResponse) => void) {
      respond = next;
    },
    url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/delivery`,
    endPending() {
      for (const response of pending) response.destroy();
    },
  };
}

describe('webhooks to a real receiver', () => {
  const receiver = startReceiver();
  let mock: MockDeliveryService;

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    mock = createMockDeliveryService({ webhookUrl: receiver.url() });
    mock.listen();
  });
  afterEach(() => {
    mock.reset();
    receiver.received.length = 0;
    receiver.setRespond((response) => response.end('ok'));
  });
  afterAll(async () => {
    mock.close();
    receiver.endPending();
    await new Promise((resolve) => receiver.server.close(resolve));
  });

  it('POSTs one JSON body per status change, including inprogress and pickup_location_reached', async () => {
    const created = await createTask(mock, taskBody('ORD-HOOK'));
    await mock.advance(created.id, 'delivered');
    const events = [
      'requested',
      'accepted',
      'inprogress',
      'pickup_location_reached',
      'pickedup',
      'enroute',
      'delivered',
    ];
    expect(receiver.received.map((webhook) => webhook.body.status)).toEqual(events);
    for (const webhook of receiver.received) {
      expect(webhook).toMatchObject({
        method: 'POST',
        path: '/hooks/delivery',
        contentType: 'application/json',
      });
    }
    expect(
      mock.webhookDeliveries.map(({ taskId, status, url, responseStatus }) => ({
        taskId,
        status,
        url,
        responseStatus,
      })),
    ).toEqual(
      events.map((status) => ({ taskId: created.id, status, url: receiver.url(), responseStatus: 200 })),
    );
    expect(mock.webhookDeliveries.map((delivery) => delivery.body)).toEqual(
      receiver.received.map((webhook) => webhook.body),
    );
  });

  it('sends the webhook form of the task', async () => {
    const created = await createTask(mock, taskBody('ORD-FORM', { pickupName: 'Front desk' }));
    const fee = mock.wallet.feesChargedFils;
    await mock.advance(created.id, 'delivered');
    const bodies = receiver.received.map((webhook) => webhook.body);
    const last = bodies.at(-1) ?? {};
    expect(last._id).toBe(created.id);
    expect(last).not.toHaveProperty('id');
    expect(last).toMatchObject({
      orderNumber: 'ORD-FORM',
      deliveryId: created.deliveryId,
      estimatedPrice: kwd.fromFils(fee),
      walletDeducted: true,
      vehicleType: expect.any(String),
      pickupName: 'Front desk',
      pickupNumber: expect.any(String),
      alternateCustomerNumber: '',
      deliveryDispatched: true,
      travelDetail: created.travelDetail,
      deliveryLocation: {
        lat: 29.3339,
        lng: 48.0761,
        kwAddress: expect.any(Array),
        fullAddress: ['Block 10, Street 5', 'Salmiya'],
      },
      pickupLocation: {
        latitude: created.pickupLocation.latitude,
        longitude: created.pickupLocation.longitude,
        fullAddress: expect.any(Array),
      },
    });
    expect(last.estimatedPrice).toMatch(/^\d+\.\d{3}$/);
    const history = last.statusHistory as Record<string, unknown>[];
    expect(history.map((entry) => entry.status)).toEqual(['pending', ...bodies.map((body) => body.status)]);
    for (const entry of history) expect(Object.keys(entry).sort()).toEqual(['status', 'timestamp']);
    for (const [index, body] of bodies.entries()) {
      expect((body.statusHistory as unknown[]).length).toBe(index + 2);
    }
  });

  it('adds driver.completed_at only once delivered', async () => {
    const created = await createTask(mock, taskBody('ORD-DONE'));
    await mock.advance(created.id, 'delivered');
    const drivers = receiver.received.map(
      (webhook) => webhook.body.driver as Record<string, unknown> | undefined,
    );
    expect(drivers[0]).toBeUndefined();
    expect(drivers.slice(1, -1).every((driver) => driver && !('completed_at' in driver))).toBe(true);
    expect(drivers.at(-1)?.completed_at).toBe(mock.task(created.id)?.completedTime);
  });

  it('records a failing receiver and still resolves advance', async () => {
    receiver.setRespond((response) => {
      response.statusCode = 500;
      response.end('boom');
    });
    const created = await createTask(mock, taskBody('ORD-500'));
    const task = await mock.advance(created.id);
    expect(task.status).toBe('requested');
    expect(mock.webhookDeliveries).toMatchObject([{ status: 'requested', responseStatus: 500 }]);
  });

  it('ends a POST the receiver never answers on reset, without logging it', async () => {
    receiver.setRespond(() => {});
    const created = await createTask(mock, taskBody('ORD-HANG'));
    const advancing = mock.advance(created.id);
    while (receiver.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const started = performance.now();
    mock.reset();
    await expect(advancing).resolves.toMatchObject({ status: 'requested' });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(mock.webhookDeliveries).toEqual([]);
  });
});

describe('webhooks to a receiver that is not there', () => {
  it('records the network error and resolves advance', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const mock = createMockDeliveryService({ webhookUrl: `http://127.0.0.1:${port}/hooks` });
    mock.listen();
    try {
      const created = await createTask(mock, taskBody('ORD-NOBODY'));
      await expect(mock.advance(created.id)).resolves.toMatchObject({ status: 'requested' });
      const [delivery] = mock.webhookDeliveries;
      expect(delivery?.responseStatus).toBeUndefined();
      expect(delivery?.error).toEqual(expect.any(String));
      expect(delivery?.durationMs).toBeGreaterThanOrEqual(0);
    } finally {
      mock.close();
    }
  });
});

describe('a webhook URL set after the mock is created', () => {
  it('sends the next status changes there, through the handlers the mock already listens with', async () => {
    // The circular setup: the mock exists (and listens) before the app's receiver has a port.
    const mock = createMockDeliveryService();
    mock.listen();
    const receiver = startReceiver();
    try {
      expect(mock.webhookUrl).toBeUndefined();
      const created = await createTask(mock, taskBody('ORD-LATE-URL'));
      await mock.advance(created.id);
      expect(mock.webhookDeliveries).toEqual([]);
      await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
      mock.setWebhookUrl(receiver.url());
      expect(mock.webhookUrl).toBe(receiver.url());
      await mock.advance(created.id);
      expect(receiver.received.map((webhook) => [webhook.path, webhook.body.status])).toEqual([
        ['/hooks/delivery', 'accepted'],
      ]);
      expect(mock.webhookDeliveries.map((delivery) => delivery.responseStatus)).toEqual([200]);
      // A reset keeps the URL (it is configuration, not state); undefined stops the webhooks.
      mock.reset();
      expect(mock.webhookUrl).toBe(receiver.url());
      mock.setWebhookUrl(undefined);
      const second = await createTask(mock, taskBody('ORD-NO-URL'));
      await mock.advance(second.id);
      expect(receiver.received).toHaveLength(1);
    } finally {
      mock.close();
      await new Promise((resolve) => receiver.server.close(resolve));
    }
  });

  it('refuses a URL that is not absolute http(s), naming webhookUrl, and keeps the previous one', () => {
    const mock = createMockDeliveryService({ webhookUrl: 'http://127.0.0.1:9/hooks' });
    for (const bad of ['/hooks', 'ftp://example.com/hooks', '', 42]) {
      expect(() => mock.setWebhookUrl(bad as string)).toThrow(TypeError);
      expect(() => mock.setWebhookUrl(bad as string)).toThrow(/webhookUrl/);
    }
    expect(mock.webhookUrl).toBe('http://127.0.0.1:9/hooks');
  });
});
