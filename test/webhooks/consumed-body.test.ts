import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createWebhookHandler, type WebhookEvent } from '../../src/webhooks/index.js';
import { postWebhook, webhookBody } from './fixtures.js';

describe('a body a framework read before the handler', () => {
  it('mounted on Fastify the obvious way, answers 400 naming the { body } form, and takes it when passed', async () => {
    const events: WebhookEvent[] = [];
    const handler = createWebhookHandler({ onEvent: (event) => void events.push(event) });
    const app = Fastify();
    // The obvious mounting: Fastify has parsed the JSON body, so the raw stream has ended.
    app.post('/obvious', async (request, reply) => {
      reply.hijack();
      await handler.node(request.raw, reply.raw);
    });
    app.post('/with-body', async (request, reply) => {
      reply.hijack();
      await handler.node(request.raw, reply.raw, { body: request.body });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const refused = await postWebhook(`${base}/obvious`, webhookBody('fastify-1', 'accepted'));
      expect(refused.status).toBe(400);
      const { error } = (await refused.json()) as { error: string };
      expect(error).toContain('handler.node(req, res, { body })');
      expect(error).not.toContain('not JSON');
      const taken = await postWebhook(`${base}/with-body`, webhookBody('fastify-1', 'accepted'));
      expect(taken.status).toBe(200);
      await handler.idle();
      expect(events.map((event) => event.taskId)).toEqual(['fastify-1']);
    } finally {
      await app.close();
      await handler.close();
    }
  });

  it('given to handler.fetch as a Request already read, answers 400 naming what to pass', async () => {
    const handler = createWebhookHandler({ onEvent: () => {} });
    const request = new Request('http://127.0.0.1/webhooks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(webhookBody('fetch-1', 'accepted')),
    });
    await request.json();
    const response = await handler.fetch(request);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain('pass an unread Request');
    await handler.close();
  });
});
