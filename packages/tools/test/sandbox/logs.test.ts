/**
 * The sandbox's logs as a reader meets them (docs/sandbox.md): `GET /_sandbox/requests` without a credential
 * on any page, whichever page sent it; bodies written as sent, ids whole for a short seller id;
 * `GET /_sandbox/webhooks` in pages like the request log. Real sockets on 127.0.0.1.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Sandbox, startSandbox } from 'delivery-task-tools/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { orderParams } from '../../../../test/support/order-params.js';

let sandbox: Sandbox | undefined;
const cleanups: Array<() => void> = [];

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const credentials = (running: Sandbox) => ({
  authorization: `apikey ${running.apiKey}`,
  'x-seller-id': running.sellerId,
  'content-type': 'application/json',
});

/** A page as read: loosely typed, as a test reads JSON. */
// biome-ignore lint/suspicious/noExplicitAny: the test reads the page's JSON by its documented field names.
type PageBody = any;

/** Every page of `path` (`requests` or `webhooks`), newest first, as text and parsed. */
async function pages(
  running: Sandbox,
  path: string,
  limit: number,
): Promise<{ text: string; body: PageBody }[]> {
  const found: { text: string; body: PageBody }[] = [];
  let before: number | undefined;
  do {
    const response = await fetch(
      `${running.controlUrl}/${path}?limit=${limit}${before ? `&before=${before}` : ''}`,
    );
    expect(response.status).toBe(200);
    const text = await response.text();
    const body = JSON.parse(text);
    found.push({ text, body });
    before = body.before;
  } while (before !== undefined);
  return found;
}

describe('GET /_sandbox/requests', () => {
  it('shows a key sent once in a 401 request on no page, the first page included', async () => {
    sandbox = await startSandbox({ port: 0 });
    const running = sandbox;
    const realKey = 'sk_live_51HxQ2eLkR9mZp0Tq';
    // Page by page: the key sent once, early, in the header of a refused request...
    const refused = await fetch(`${running.baseUrl}/tasks/wallet-balance`, {
      headers: { authorization: `apikey ${realKey}`, 'x-seller-id': 'someone' },
    });
    expect(refused.status).toBe(401);
    // ...then in the query, the URL path, a JSON body and a text body of later requests, each on its own page.
    for (let index = 0; index < 12; index++) {
      await fetch(`${running.baseUrl}/tasks?search=${realKey}&limit=${index + 1}`, {
        headers: credentials(running),
      });
      await fetch(`${running.baseUrl}/tasks/${realKey}`, { headers: credentials(running) });
      await fetch(`${running.baseUrl}/tasks/estimate`, {
        method: 'POST',
        headers: credentials(running),
        body: JSON.stringify({ note: `pasted ${realKey} by mistake`, apiKey: 'short', sellerId: 'x' }),
      });
      await fetch(`${running.baseUrl}/tasks/estimate`, {
        method: 'POST',
        headers: { ...credentials(running), 'content-type': 'text/plain' },
        body: `key=${encodeURIComponent(realKey)}`,
      });
    }
    const all = await pages(running, 'requests', 5);
    expect(all.length).toBeGreaterThan(5);
    for (const [index, page] of all.entries()) {
      for (const secret of [realKey, running.apiKey, running.sellerId, encodeURIComponent(realKey)]) {
        expect(page.text, `page ${index}`).not.toContain(secret);
      }
    }
    const first = all[0]?.body.requests as Array<{ body: unknown; headers: Record<string, string> }>;
    expect(first.at(-1)?.headers.authorization).toBe('apikey [redacted]');
    const estimate = all.flatMap((page) => page.body.requests).find((request) => request.body?.note);
    expect(estimate.body).toEqual({
      note: 'pasted [redacted] by mistake',
      apiKey: '[redacted]',
      sellerId: '[redacted]',
    });
    const oldest = all.at(-1)?.body.requests[0];
    expect(oldest.status).toBe(401);
    expect(oldest.headers).toMatchObject({ authorization: 'apikey [redacted]', 'x-seller-id': '[redacted]' });
  });

  it('writes bodies and ids whole for a seller id of one character', async () => {
    sandbox = await startSandbox({ port: 0, sellerId: 'e', apiKey: 'sandbox-key-0123456789' });
    const running = sandbox;
    const created = await fetch(`${running.baseUrl}/tasks`, {
      method: 'POST',
      headers: credentials(running),
      body: JSON.stringify(orderParams('ORD-E-1')),
    });
    expect(created.status).toBe(200);
    const [page] = await pages(running, 'requests', 100);
    const request = page?.body.requests[0];
    expect(request.body).toEqual(orderParams('ORD-E-1'));
    expect(request.path).toBe('/tasks');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-seller-id']).toBe('[redacted]');
    expect(page?.text).not.toContain('sandbox-key-0123456789');
  });
});

describe('GET /_sandbox/webhooks', () => {
  it('answers in pages, newest last, like the request log', async () => {
    const receiver = createServer((request, response) => {
      request.resume();
      response.end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => receiver.close());
    const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    sandbox = await startSandbox({ port: 0, webhookUrl });
    const running = sandbox;
    for (let index = 0; index < 3; index++) {
      const created = await fetch(`${running.baseUrl}/tasks`, {
        method: 'POST',
        headers: credentials(running),
        body: JSON.stringify(orderParams(`ORD-HOOK-${index}`)),
      });
      const { id } = ((await created.json()) as { data: { createTask: { id: string } } }).data.createTask;
      await fetch(`${running.controlUrl}/tasks/${id}/advance`, {
        method: 'POST',
        body: '{"status":"delivered"}',
      });
    }
    const delivered = running.mock.webhookDeliveries.length;
    expect(delivered).toBeGreaterThan(6);
    const all = await pages(running, 'webhooks', 4);
    expect(all).toHaveLength(Math.ceil(delivered / 4));
    const seqs = all.flatMap((page) => page.body.deliveries.map((delivery: { seq: number }) => delivery.seq));
    expect(seqs.toSorted((a, b) => a - b)).toEqual(
      Array.from({ length: delivered }, (_, index) => index + 1),
    );
    expect(all[0]?.body).toMatchObject({ webhookUrl, total: delivered });
    const last = all[0]?.body.deliveries.at(-1);
    expect(last.body).toMatchObject({ orderNumber: 'ORD-HOOK-2', status: 'delivered' });
    expect((await fetch(`${running.controlUrl}/webhooks?limit=0`)).status).toBe(400);
    expect((await fetch(`${running.controlUrl}/webhooks?before=x`)).status).toBe(400);
  });
});
