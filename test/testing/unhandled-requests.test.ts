import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DeliveryClient } from '../../src/index.js';
import { runtimeWithoutMswInterception } from '../../src/testing/msw-support.js';
import { createMockDeliveryService } from '../../src/testing.js';

// The detection is stubbed per test to take the mock's own fetch interception (Node.js before 22.12).
vi.mock('../../src/testing/msw-support.js', { spy: true });

/** The merchant's app under test: a real server on 127.0.0.1 that books a delivery through the SDK. */
let app: Server;
let appUrl: string;
let client: DeliveryClient | undefined;

beforeAll(async () => {
  app = createServer((request, response) => {
    if (client === undefined || request.url !== '/checkout') {
      response.writeHead(404).end();
      return;
    }
    client.tasks.create({ orderNumber: 'APP-1', deliveryLocation: { latitude: 29.3, longitude: 48 } }).then(
      (task) =>
        response
          .writeHead(201, { 'content-type': 'application/json' })
          .end(JSON.stringify({ taskId: task.id })),
      (error: unknown) => response.writeHead(502).end((error as Error).name),
    );
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => app.close(() => resolve()));
});

afterEach(() => {
  vi.mocked(runtimeWithoutMswInterception).mockRestore();
  vi.restoreAllMocks();
  client = undefined;
});

for (const interception of ['msw', 'the mock’s own fetch interception'] as const) {
  describe(`mock.listen() by default, through ${interception}`, () => {
    it('lets a test call the app on 127.0.0.1, whose booking the mock answers, warning once', async () => {
      if (interception !== 'msw') vi.mocked(runtimeWithoutMswInterception).mockReturnValue('Node.js 20.20.2');
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const mock = createMockDeliveryService();
      mock.listen();
      try {
        client = new DeliveryClient({
          apiKey: mock.apiKey,
          sellerId: mock.sellerId,
          baseUrl: mock.baseUrl,
          logLevel: 'off',
        });
        const first = await fetch(`${appUrl}/checkout`, { method: 'POST' });
        expect(first.status).toBe(201);
        const { taskId } = (await first.json()) as { taskId: string };
        expect(mock.task(taskId)?.orderNumber).toBe('APP-1');
        expect((await fetch(`${appUrl}/elsewhere`)).status).toBe(404);
        // One warning, naming the first request let through; none for the later ones.
        const lines = warn.mock.calls
          .map((call) => String(call[0]))
          .filter((line) => line.includes('mock.listen()'));
        expect(lines).toEqual([expect.stringContaining(`POST ${appUrl}/checkout is not the mock service's`)]);
        // A path of the mock's own origin that no handler serves still fails: it never reaches a network.
        await expect(fetch(`${mock.baseUrl}/not-a-route`)).rejects.toThrow();
      } finally {
        mock.close();
      }
    });

    it("refuses the app's address with onUnhandledFrame 'error', as before", async () => {
      if (interception !== 'msw') vi.mocked(runtimeWithoutMswInterception).mockReturnValue('Node.js 20.20.2');
      vi.spyOn(console, 'error').mockImplementation(() => {});
      const mock = createMockDeliveryService();
      mock.listen({ onUnhandledFrame: 'error' });
      try {
        await expect(fetch(`${appUrl}/elsewhere`)).rejects.toThrow();
      } finally {
        mock.close();
      }
    });
  });
}
