/**
 * The sandbox's control endpoints as a user meets them (docs/sandbox.md, "Control endpoints"): each
 * endpoint's body in `GET /_sandbox` and in `delivery-task sandbox --help`, 400s that name the missing
 * field and the body expected, and `POST /_sandbox/webhook-url` changing where webhooks go on a running
 * sandbox. Real sockets on 127.0.0.1, the sandbox in this process.
 */
import { DeliveryClient } from 'delivery-task-sdk';
import { WEBHOOK_EVENT_KINDS } from 'delivery-task-sdk/schemas';
import { type Sandbox, startSandbox } from 'delivery-task-tools/sandbox';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { orderParams } from '../../../../../test/support/order-params.js';
import { runCliProcess } from '../../support/cli.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/sandbox-process.js';

let sandbox: Sandbox | undefined;
const receivers: WebhookReceiver[] = [];

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  for (const receiver of receivers.splice(0)) await receiver.close();
});

async function send(
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  if (!sandbox) throw new Error('no sandbox');
  const response = await fetch(`${sandbox.baseUrl}${path}`, {
    method,
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function newTask(running: Sandbox, orderNumber: string): Promise<string> {
  const client = new DeliveryClient({
    apiKey: running.apiKey,
    sellerId: running.sellerId,
    baseUrl: running.baseUrl,
    maxRetries: 0,
  });
  return String((await client.tasks.create(orderParams(orderNumber))).id);
}

describe('the control endpoints describe themselves', () => {
  it('GET /_sandbox lists every endpoint with the body it takes', async () => {
    sandbox = await startSandbox();
    const { status, body } = await send('GET', '/_sandbox');
    expect(status).toBe(200);
    const endpoints = body.endpoints as Array<{ method: string; path: string; body?: string }>;
    const bodyOf = (method: string, path: string) =>
      endpoints.find((endpoint) => endpoint.method === method && endpoint.path === path);
    expect(bodyOf('POST', '/_sandbox/tasks/{id}/advance')?.body).toContain('{"status": "<target>"}');
    expect(bodyOf('POST', '/_sandbox/top-ups/complete')?.body).toContain('{"paymentUrl"');
    expect(bodyOf('POST', '/_sandbox/faults')?.body).toContain('"kind"');
    expect(bodyOf('POST', '/_sandbox/webhook-url')?.body).toContain('{"url"');
    expect(bodyOf('DELETE', '/_sandbox/faults')).toBeDefined();
    expect(bodyOf('POST', '/_sandbox/reset')).toBeDefined();
    // An unknown endpoint points to the list.
    const unknown = await send('POST', '/_sandbox/nothing');
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain('GET /_sandbox describes each, with its body');
  });

  it('delivery-task sandbox --help shows each body', async () => {
    const help = await runCliProcess(['sandbox', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('POST /_sandbox/tasks/{id}/advance');
    expect(help.stdout).toContain('body: {"status": "<target>"}');
    expect(help.stdout).toContain('body: {"paymentUrl": ');
    expect(help.stdout).toContain('DELETE /_sandbox/faults: switches every fault rule off');
    expect(help.stdout).toContain('POST /_sandbox/webhook-url');
  }, 60_000);
});

describe('a bad control body is answered 400 naming the field and the body expected', () => {
  it('names paymentUrl when top-ups/complete has no body, or an empty object', async () => {
    sandbox = await startSandbox();
    for (const body of [undefined, '{}']) {
      const answer = await send('POST', '/_sandbox/top-ups/complete', body);
      expect(answer.status).toBe(400);
      expect(answer.body.message).toContain('paymentUrl: required');
      expect(answer.body.message).toContain('(expected body: {"paymentUrl": ');
    }
  });

  it('names the field of a fault rule and of an advance', async () => {
    sandbox = await startSandbox();
    const fault = await send('POST', '/_sandbox/faults');
    expect(fault.status).toBe(400);
    expect(fault.body.message).toMatch(/^kind: must be one of status/);
    expect(fault.body.message).toContain('GET /_sandbox/faults lists each kind');
    const id = await newTask(sandbox, 'CTRL-ADV-1');
    const advance = await send('POST', `/_sandbox/tasks/${id}/advance`, '{"state":"accepted"}');
    expect(advance.status).toBe(400);
    expect(advance.body.message).toContain('state');
    expect(advance.body.message).toContain('(expected body: {"status": "<target>"}');
    const bad = await send('POST', `/_sandbox/tasks/${id}/advance`, '{"status":"flying"}');
    expect(bad.body.message).toContain('status: must be one of pending, requested');
    // No body: one step along the delivery path.
    expect((await send('POST', `/_sandbox/tasks/${id}/advance`)).body.status).toBe('requested');
  });
});

describe('POST /_sandbox/webhook-url', () => {
  it('sends the next webhooks to the new URL, and none after null', async () => {
    const first = await startWebhookReceiver();
    const second = await startWebhookReceiver();
    receivers.push(first, second);
    sandbox = await startSandbox({ webhookUrl: first.url });
    const id = await newTask(sandbox, 'CTRL-HOOK-1');
    await send('POST', `/_sandbox/tasks/${id}/advance`);
    expect(first.received).toHaveLength(1);

    const changed = await send('POST', '/_sandbox/webhook-url', JSON.stringify({ url: second.url }));
    expect(changed).toEqual({ status: 200, body: { webhookUrl: second.url } });
    expect((await send('GET', '/_sandbox/webhooks')).body.webhookUrl).toBe(second.url);
    await send('POST', `/_sandbox/tasks/${id}/advance`);
    await vi.waitFor(() => expect(second.received).toHaveLength(1), { timeout: 5000 });
    expect(first.received).toHaveLength(1);

    expect((await send('POST', '/_sandbox/webhook-url', '{"url":null}')).body).toEqual({ webhookUrl: null });
    await send('POST', `/_sandbox/tasks/${id}/advance`);
    expect(second.received).toHaveLength(1);
    expect(first.received).toHaveLength(1);
  });

  it('refuses a URL that is not http(s), naming url, and keeps the one it had', async () => {
    sandbox = await startSandbox({ webhookUrl: 'http://127.0.0.1:9/hooks' });
    for (const body of [undefined, '{"url":"ftp://example.com/x"}', '{"url":"not a url"}']) {
      const answer = await send('POST', '/_sandbox/webhook-url', body);
      expect(answer.status).toBe(400);
      expect(answer.body.message).toMatch(/^url: /);
      expect(answer.body.message).toContain('(expected body: {"url": ');
    }
    expect((await send('GET', '/_sandbox/webhooks')).body.webhookUrl).toBe('http://127.0.0.1:9/hooks');
    expect((await send('GET', '/_sandbox/webhook-url')).status).toBe(405);
  });
});

describe('the webhook kinds the sandbox sends', () => {
  it('are the typed kinds, every one of them, and nothing else', async () => {
    const receiver = await startWebhookReceiver();
    receivers.push(receiver);
    sandbox = await startSandbox({ webhookUrl: receiver.url });
    const moves: Array<[string, string[]]> = [
      ['KINDS-1', ['delivered']],
      ['KINDS-2', ['cancelled']],
      ['KINDS-3', ['rejected']],
      ['KINDS-4', ['enroute', 'failed']],
    ];
    for (const [orderNumber, targets] of moves) {
      const id = await newTask(sandbox, orderNumber);
      for (const status of targets) {
        expect((await send('POST', `/_sandbox/tasks/${id}/advance`, JSON.stringify({ status }))).status).toBe(
          200,
        );
      }
    }
    const sent = new Set(receiver.received.map((delivery) => String(delivery.body.status)));
    expect([...sent].sort()).toEqual([...WEBHOOK_EVENT_KINDS].sort());
  });
});
