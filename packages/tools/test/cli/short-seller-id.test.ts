/**
 * `delivery-task` output stays whole for any seller id (src/internal/redact.ts): a short one is removed where
 * it is a credential (a task's `sellerId`), never as a part of ids, keys or JSON; the long API key never shows.
 */
import { createMockDeliveryService, startMockHttpServer } from 'delivery-task-sdk/testing';
import { describe, expect, it } from 'vitest';
import { orderParams } from '../../../../test/support/order-params.js';
import { cliEnv, runInProcess } from '../support/cli.js';

const API_KEY = 'cli-secret-key-5Rt8Wq-long';

describe('CLI output with a short seller id', () => {
  for (const sellerId of ['e', '1', 'a', 'test', '-']) {
    it(`${JSON.stringify(sellerId)}: tasks get --json and tasks list --json are intact JSON with the real ids`, async () => {
      const mock = createMockDeliveryService({
        apiKey: API_KEY,
        sellerId,
        baseUrl: 'https://delivery.test/rest',
      });
      const server = await startMockHttpServer(mock);
      try {
        const created = await fetch(`${server.url}/tasks`, {
          method: 'POST',
          headers: {
            authorization: `apikey ${API_KEY}`,
            'x-seller-id': sellerId,
            'content-type': 'application/json',
          },
          body: JSON.stringify(orderParams('ORD-CLI-1')),
        });
        expect(created.status).toBe(200);
        const id = mock.tasks[0]?.id ?? '';
        const env = cliEnv(mock, server.url);
        const got = await runInProcess(['tasks', 'get', id, '--json'], { env });
        expect(got.code, got.stderr).toBe(0);
        const task = JSON.parse(got.stdout) as Record<string, unknown>;
        expect(task.id).toBe(id);
        expect(task.orderNumber).toBe('ORD-CLI-1');
        expect(task.sellerId).toBe('[redacted]');
        const listed = await runInProcess(['tasks', 'list', '--json'], { env });
        expect(listed.code, listed.stderr).toBe(0);
        expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((item) => item.id)).toEqual([id]);
        const human = await runInProcess(['tasks', 'get', id], { env });
        expect(human.stdout).toContain(id);
        for (const text of [got.stdout, got.stderr, listed.stdout, listed.stderr, human.stdout]) {
          expect(text).not.toContain(API_KEY);
        }
      } finally {
        await server.close();
      }
    });
  }
});
