/**
 * The sandbox's side of the dashboard without a browser (docs/sandbox.md): the event stream and its
 * bounds, the read endpoints, the exposure checks (Origin, Host, control token) and the payment page.
 * Real sockets on 127.0.0.1, the sandbox in this process.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { DeliveryClient } from 'delivery-task-sdk';
import { type Sandbox, startSandbox } from 'delivery-task-tools/sandbox';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, builtAfterSource, ensureBuilt } from '../../../../../test/support/build.js';
import { orderParams } from '../../../../../test/support/order-params.js';
import { startWebhookReceiver } from '../../support/sandbox-process.js';

let sandbox: Sandbox | undefined;

// The dashboard's page is served from the build (`dist/dashboard`): built here, not left to another file.
beforeAll(
  () => ensureBuilt(() => builtAfterSource('packages/tools/dist/dashboard/dashboard.js')),
  BUILD_TIMEOUT_MS,
);

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const clientOf = (running: Sandbox) =>
  new DeliveryClient({
    apiKey: running.apiKey,
    sellerId: running.sellerId,
    baseUrl: running.baseUrl,
    maxRetries: 0,
  });

async function json(
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  if (!sandbox) throw new Error('no sandbox');
  const response = await fetch(`${sandbox.baseUrl}${path}`, init);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Reads Server-Sent Events from `GET /_sandbox/events` until `count` events named `name` have come. */
async function readEvents(
  url: string,
  name: string,
  count: number,
  headers: Record<string, string> = {},
): Promise<unknown[]> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const found: unknown[] = [];
  let buffer = '';
  while (found.length < count) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (block.includes(`event: ${name}\n`))
        found.push(JSON.parse(block.slice(block.indexOf('data: ') + 6)));
    }
  }
  controller.abort();
  return found;
}

describe('GET /_sandbox/events', () => {
  it('streams a created task, a move, a fault and a reset', async () => {
    sandbox = await startSandbox();
    const running = sandbox;
    const client = clientOf(running);
    const tasks = readEvents(`${running.controlUrl}/events`, 'task', 2);
    const ready = await readEvents(`${running.controlUrl}/events`, 'ready', 1);
    expect(ready).toEqual([{}]);
    const faults = readEvents(`${running.controlUrl}/events`, 'faults', 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const task = await client.tasks.create(orderParams('SSE-1'));
    await running.mock.advance(String(task.id));
    running.mock.inject({ kind: 'delay', ms: 1, operation: 'branches.list' });
    const events = (await tasks) as Array<{ task: { id: string; status: string }; feeFils: number }>;
    expect(events.map((event) => [event.task.id, event.task.status])).toEqual([
      [task.id, 'pending'],
      [task.id, 'requested'],
    ]);
    expect(events[0]?.feeFils).toBeGreaterThan(0);
    expect(await faults).toEqual([
      { active: [{ index: 0, rule: { kind: 'delay', ms: 1, operation: 'branches.list' }, remaining: 1 }] },
    ]);
  });

  it('answers 503 beyond maxEventClients, and drops a reader that falls maxEventBufferedBytes behind', async () => {
    // 20 seed tasks of 64 KB notes (a create takes 1,000 characters a field; seed tasks are not bound): every
    // reset plants them again, one task event each.
    const seeds = Array.from({ length: 20 }, (_, index) => ({
      ...orderParams(`SLOW-${index}`),
      specialNotes: 'n'.repeat(64 * 1024),
    }));
    sandbox = await startSandbox({
      maxEventClients: 2,
      maxEventBufferedBytes: 64 * 1024,
      account: { type: 'invoice' },
      tasks: seeds,
    });
    const running = sandbox;
    const { port } = new URL(running.baseUrl);
    // Two raw sockets that ask for the stream and never read it.
    const sockets = [connect(Number(port), '127.0.0.1'), connect(Number(port), '127.0.0.1')];
    const closed = sockets.map(
      (socket) =>
        new Promise<void>((resolve) => {
          socket.on('close', () => resolve());
          socket.on('error', () => resolve());
        }),
    );
    for (const socket of sockets) {
      socket.write(`GET /_sandbox/events HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`);
      socket.pause();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const third = await fetch(`${running.controlUrl}/events`);
    expect(third.status).toBe(503);
    expect(((await third.json()) as { code: string }).code).toBe('TOO_MANY_EVENT_STREAMS');
    // Each task event carries 64 KB of notes: the unread streams fill the kernel's socket buffers, then
    // the 64 KiB bound of the sandbox's own buffer; a dropped stream makes room for a new reader.
    let room: Response | undefined;
    for (let index = 0; index < 200 && room === undefined; index += 1) {
      await (await fetch(`${running.controlUrl}/reset`, { method: 'POST' })).arrayBuffer();
      const attempt = await fetch(`${running.controlUrl}/events`);
      if (attempt.status === 200) room = attempt;
      else await attempt.body?.cancel();
    }
    expect(room?.status).toBe(200);
    await room?.body?.cancel();
    for (const socket of sockets) socket.resume();
    await Promise.all(closed);
  }, 120_000);
});

describe('dashboard read endpoints', () => {
  it('lists tasks newest first with their fee, one task with its events, the wallet and its top-ups', async () => {
    sandbox = await startSandbox();
    const client = clientOf(sandbox);
    const first = await client.tasks.create(orderParams('VIEW-1'));
    const second = await client.tasks.create(orderParams('VIEW-2'));
    const list = await json('/_sandbox/tasks?limit=1');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect((list.body.tasks as Array<{ task: { id: string } }>).map((entry) => entry.task.id)).toEqual([
      second.id,
    ]);
    expect((await json('/_sandbox/tasks?limit=0')).status).toBe(400);
    expect((await json('/_sandbox/tasks?limit=1001')).status).toBe(400);

    await sandbox.mock.advance(String(first.id), 'accepted');
    const moved = await json(`/_sandbox/tasks/${first.id}/advance`, {
      method: 'POST',
      body: JSON.stringify({ status: 'pickup_location_reached' }),
    });
    expect(moved.status).toBe(200);
    expect(moved.body.status).toBe('accepted');
    const again = await json(`/_sandbox/tasks/${first.id}/advance`, {
      method: 'POST',
      body: '{"status":"inprogress"}',
    });
    expect(again.status).toBe(409);
    const view = await json(`/_sandbox/tasks/${first.id}`);
    expect((view.body.events as Array<{ status: string }>).map((event) => event.status)).toEqual([
      'pending',
      'requested',
      'accepted',
      'inprogress',
      'pickup_location_reached',
    ]);
    // One step from there: pickedup, without the webhook-only events again.
    await sandbox.mock.advance(String(first.id));
    const after = await json(`/_sandbox/tasks/${first.id}`);
    expect((after.body.events as Array<{ status: string }>).map((event) => event.status).slice(3)).toEqual([
      'inprogress',
      'pickup_location_reached',
      'pickedup',
    ]);
    expect((await json('/_sandbox/tasks/unknown-id')).status).toBe(404);

    const topUp = await client.wallet.topUp({ amount: 5.5 });
    const wallet = await json('/_sandbox/wallet');
    expect(wallet.body.topUps).toEqual([
      expect.objectContaining({ paymentUrl: topUp.paymentUrl, amountFils: 5500 }),
    ]);
  });

  it('lists the fault kinds from the schema POST /_sandbox/faults accepts, and removes one active rule', async () => {
    sandbox = await startSandbox();
    const kinds = await json('/_sandbox/faults');
    const names = (kinds.body.kinds as Array<{ kind: string }>).map((kind) => kind.kind);
    expect(names).toEqual(expect.arrayContaining(['status', 'network-error', 'delay', 'repeat-page']));
    // Every kind listed is one POST /_sandbox/faults accepts.
    const minimal: Record<string, Record<string, unknown>> = { status: { status: 500 }, delay: { ms: 1 } };
    for (const kind of names) {
      const posted = await json('/_sandbox/faults', {
        method: 'POST',
        body: JSON.stringify({ kind, ...(minimal[kind] ?? {}), operation: 'tasks.list', times: 'Infinity' }),
      });
      expect(posted.status, kind).toBe(201);
    }
    const active = await json('/_sandbox/faults');
    expect((active.body.active as unknown[]).length).toBe(names.length);
    const removed = await json('/_sandbox/faults/0', { method: 'DELETE' });
    expect(
      (removed.body.active as Array<{ rule: { kind: string } }>).map((fault) => fault.rule.kind),
    ).toEqual(names.slice(1));
    expect((await json('/_sandbox/faults/99', { method: 'DELETE' })).status).toBe(404);
    expect((await json('/_sandbox/faults', { method: 'DELETE' })).body).toEqual({ active: [] });
  });

  it('shows and uses a webhook URL set on its mock after it started', async () => {
    const receiver = await startWebhookReceiver(500);
    try {
      sandbox = await startSandbox();
      expect((await json('/_sandbox/webhooks')).body.webhookUrl).toBeNull();
      sandbox.mock.setWebhookUrl(receiver.url);
      const task = await clientOf(sandbox).tasks.create(orderParams('LATE-URL-1'));
      await sandbox.mock.advance(String(task.id));
      const listed = await json('/_sandbox/webhooks');
      expect(listed.body.webhookUrl).toBe(receiver.url);
      expect(listed.body.deliveries).toMatchObject([{ seq: 1, responseStatus: 200, status: 'requested' }]);
      await receiver.waitFor(1);
    } finally {
      await receiver.close();
    }
  });

  it('sends a delivery again with the same body, at most 8 at a time', async () => {
    const receiver = await startWebhookReceiver(500);
    try {
      sandbox = await startSandbox({ webhookUrl: receiver.url });
      const task = await clientOf(sandbox).tasks.create(orderParams('RESEND-1'));
      await sandbox.mock.advance(String(task.id));
      const listed = await json('/_sandbox/webhooks');
      const [first] = listed.body.deliveries as Array<{ seq: number; responseStatus: number }>;
      expect(first).toMatchObject({ seq: 1, responseStatus: 200, status: 'requested' });
      const answers = await Promise.all(
        Array.from({ length: 9 }, () => json('/_sandbox/webhooks/1/resend', { method: 'POST' })),
      );
      expect(answers.map((answer) => answer.status).toSorted()).toEqual([
        200, 200, 200, 200, 200, 200, 200, 200, 429,
      ]);
      expect(answers.find((answer) => answer.status === 200)?.body).toMatchObject({
        resentFrom: 1,
        responseStatus: 200,
      });
      await receiver.waitFor(9);
      expect(new Set(receiver.received.map((webhook) => JSON.stringify(webhook.body))).size).toBe(1);
      expect((await json('/_sandbox/webhooks/99/resend', { method: 'POST' })).status).toBe(404);
    } finally {
      await receiver.close();
    }
  });

  it('counts a finite rule down as the SDK meets it', async () => {
    sandbox = await startSandbox();
    const client = clientOf(sandbox);
    await json('/_sandbox/faults', {
      method: 'POST',
      body: JSON.stringify({ kind: 'status', status: 503, operation: 'branches.list', times: 2 }),
    });
    await expect(client.branches.list()).rejects.toMatchObject({ status: 503 });
    expect((await json('/_sandbox/faults')).body.active).toEqual([
      { index: 0, rule: { kind: 'status', status: 503, operation: 'branches.list', times: 2 }, remaining: 1 },
    ]);
    await expect(client.branches.list()).rejects.toMatchObject({ status: 503 });
    expect((await json('/_sandbox/faults')).body.active).toEqual([]);
    await expect(client.branches.list()).resolves.toBeDefined();
  });
});

describe('exposure', () => {
  it('refuses a foreign Origin, a cross-site fetch and a foreign Host on every control endpoint', async () => {
    sandbox = await startSandbox();
    const { port } = new URL(sandbox.baseUrl);
    for (const headers of [
      { origin: 'http://evil.example', 'content-type': 'text/plain' },
      { origin: 'null' },
      { origin: `http://127.0.0.1:${Number(port) + 1}` },
      { 'sec-fetch-site': 'cross-site' },
    ]) {
      const answer = await json('/_sandbox/reset', { method: 'POST', headers, body: 'x' });
      expect(answer, JSON.stringify(headers)).toMatchObject({
        status: 403,
        body: { code: 'FOREIGN_ORIGIN' },
      });
    }
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      expect((await json('/_sandbox/tasks', { headers: { origin } })).status).toBe(200);
    }
    // A DNS-rebinding page names its own host.
    const status = await new Promise<number>((resolve, reject) => {
      httpRequest(
        { host: '127.0.0.1', port, path: '/_sandbox/tasks', headers: { host: `rebind.example:${port}` } },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      )
        .on('error', reject)
        .end();
    });
    expect(status).toBe(403);
  });

  it('needs a token beyond loopback, checks it on every control call and never echoes it', async () => {
    await expect(startSandbox({ host: '0.0.0.0' })).rejects.toThrow(
      expect.objectContaining({
        option: 'host',
        message:
          'Invalid host: expected a loopback address (127.0.0.1, localhost, ::1), or a controlToken to guard the control endpoints beyond it, got "0.0.0.0"',
      }),
    );
    await expect(startSandbox({ controlToken: 'short' })).rejects.toThrow(
      expect.objectContaining({
        option: 'controlToken',
        message:
          'Invalid controlToken: expected 16 to 1024 visible ASCII characters (no spaces), got a string of 5 characters',
      }),
    );
    const token = 'sandbox-token-0123456789';
    sandbox = await startSandbox({ controlToken: token });
    for (const authorization of [undefined, 'Bearer wrong-token-0123456789', `Bearer ${token}x`, token]) {
      const answer = await json('/_sandbox/tasks', { headers: authorization ? { authorization } : {} });
      expect(answer.status).toBe(401);
      expect(JSON.stringify(answer.body)).not.toContain(token);
    }
    expect((await json('/_sandbox/tasks', { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
    const events = await fetch(`${sandbox.controlUrl}/events`);
    expect(events.status).toBe(401);
    // The dashboard's page itself needs no token (it asks for it), and the service routes keep their API key.
    expect((await fetch(`${sandbox.baseUrl}/`)).status).toBe(200);
  });

  it('serves the dashboard with a CSP that forbids inline script', async () => {
    sandbox = await startSandbox();
    const page = await fetch(`${sandbox.baseUrl}/`);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await page.text()).not.toMatch(/<script>|<script [^>]*>[^<]/);
  });
});

describe('GET /pay/<token>', () => {
  it('shows the top-up and pays it once; an unknown link is a 404 page', async () => {
    sandbox = await startSandbox();
    const client = clientOf(sandbox);
    const topUp = await client.wallet.topUp({ amount: 7 });
    const url = String(topUp.paymentUrl);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await page.text()).toContain('Pay 7.000 KWD');
    const before = (await client.wallet.retrieveBalance()).walletAmount;
    const paid = await fetch(url, { method: 'POST', headers: { origin: sandbox.baseUrl } });
    expect(paid.status).toBe(200);
    expect((await client.wallet.retrieveBalance()).walletAmount).toBeCloseTo(before + 7, 3);
    expect((await fetch(url, { method: 'POST' })).status).toBe(409);
    expect((await fetch(url, { method: 'POST', headers: { origin: 'http://evil.example' } })).status).toBe(
      403,
    );
    expect((await fetch(`${sandbox.baseUrl}/pay/nothing`)).status).toBe(404);
  });
});
