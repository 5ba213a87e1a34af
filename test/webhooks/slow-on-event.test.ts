import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { postWebhook, webhookBody } from './fixtures.js';
import { type Receiver, startReceiver } from './servers.js';

const ON_EVENT_MS = 10_000;

describe('a webhook whose onEvent takes 10 s', () => {
  let receiver: Receiver | undefined;
  afterAll(() => receiver?.close());

  it(
    'is answered in well under the 5 s the service waits, and processed once onEvent is done',
    async () => {
      const done: string[] = [];
      const handler = createWebhookHandler({
        onEvent: async (event) => {
          await sleep(ON_EVENT_MS);
          done.push(event.taskId);
        },
      });
      receiver = await startReceiver('node:http', handler);
      const url = receiver.url;
      const started = performance.now();
      const responses = await Promise.all(
        ['slow-1', 'slow-2', 'slow-3'].map((id) => postWebhook(url, webhookBody(id, 'delivered'))),
      );
      const answeredMs = performance.now() - started;
      expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
      // Half the service's 5 s wait: answering does not wait for onEvent's 10 s (nothing is done yet), and
      // the margin holds with both cores busy (1.1 s seen at load 15).
      expect(answeredMs).toBeLessThan(2500);
      expect(done).toEqual([]);
      await handler.idle();
      expect(performance.now() - started).toBeGreaterThanOrEqual(ON_EVENT_MS - 50);
      expect(done.sort()).toEqual(['slow-1', 'slow-2', 'slow-3']);
    },
    ON_EVENT_MS * 3,
  );
});
