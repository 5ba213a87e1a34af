/**
 * The sandbox at its limits (docs/sandbox.md): a top-up paid past the largest amount, fault rules that
 * could not be served, methods a fetch `Request` cannot carry. Real sockets on 127.0.0.1.
 */
import { connect } from 'node:net';
import { MAX_KWD_AMOUNT } from 'delivery-task-sdk/schemas';
import { type Sandbox, startSandbox } from 'delivery-task-tools/sandbox';
import { afterEach, describe, expect, it } from 'vitest';

let sandbox: Sandbox | undefined;

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function start(options: Parameters<typeof startSandbox>[0] = {}): Promise<Sandbox> {
  sandbox = await startSandbox({ port: 0, ...options });
  return sandbox;
}

const credentials = (running: Sandbox) => ({
  authorization: `apikey ${running.apiKey}`,
  'x-seller-id': running.sellerId,
  'content-type': 'application/json',
});

async function call(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** Sends raw bytes and resolves with the answer's status line and headers (empty: none within 2 s). */
function raw(baseUrl: string, text: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(text));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.setTimeout(2000, () => socket.destroy());
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('a payment past the largest amount', () => {
  it('is refused with 400 by the control endpoint and the payment page, crediting nothing', async () => {
    const running = await start({ account: { type: 'wallet', balance: 0 } });
    const topUp = (amount: string) =>
      call(`${running.baseUrl}/tasks/wallet-topup`, {
        method: 'POST',
        headers: credentials(running),
        body: `{"amount":${amount}}`,
      });
    const largest = await topUp(MAX_KWD_AMOUNT);
    const small = await topUp('5');
    expect([largest.status, small.status]).toEqual([200, 200]);
    const complete = (paymentUrl: unknown) =>
      call(`${running.controlUrl}/top-ups/complete`, {
        method: 'POST',
        body: JSON.stringify({ paymentUrl }),
      });
    expect((await complete(small.body.paymentUrl)).status).toBe(200);
    const refused = await complete(largest.body.paymentUrl);
    expect(refused.status).toBe(400);
    expect(String(refused.body.message)).toMatch(/^paymentUrl: .*largest amount/);
    const page = await fetch(String(largest.body.paymentUrl), { method: 'POST' });
    expect(page.status).toBe(400);
    const balance = await call(`${running.baseUrl}/tasks/wallet-balance`, { headers: credentials(running) });
    expect(balance).toEqual({ status: 200, body: { walletAmount: 5 } });
    expect((await call(`${running.controlUrl}/wallet`)).status).toBe(200);
  });
});

describe('fault rules that could not be served', () => {
  it('are refused with 400 naming the header; a served rule answers its own status', async () => {
    const running = await start();
    const inject = (rule: unknown) =>
      call(`${running.controlUrl}/faults`, { method: 'POST', body: JSON.stringify(rule) });
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ 'retry after': '1' }, /^body: headers\["retry after"\]: not an HTTP header name/],
      [{ 'x-note': 'a\r\nset-cookie: b=c' }, /^body: headers\["x-note"\]: .*CR, LF/],
      [{ 'x-note': 'line\nbreak' }, /^body: headers\["x-note"\]/],
      [{ 'x-note': 'nul\u0000' }, /^body: headers\["x-note"\]/],
      [{ 'x-note': 'arabic \u0627' }, /^body: headers\["x-note"\]/],
      [{ '': 'empty' }, /^body: headers\[""\]/],
      [{ 'content-length': '3' }, /^body: headers\["content-length"\]: set by the mock/],
      [{ 'Transfer-Encoding': 'chunked' }, /^body: headers\["Transfer-Encoding"\]/],
    ];
    for (const [headers, message] of bad) {
      const answer = await inject({
        kind: 'status',
        status: 503,
        headers,
        operation: 'wallet.retrieveBalance',
      });
      expect(answer.status, JSON.stringify(headers)).toBe(400);
      expect(String(answer.body.message), JSON.stringify(headers)).toMatch(message);
    }
    expect((await call(`${running.controlUrl}/faults`)).body.active).toEqual([]);
    expect(() =>
      running.mock.inject({ kind: 'status', status: 503, headers: { 'retry after': '1' } }),
    ).toThrow(/headers\["retry after"\]/);
    const served = await inject({
      kind: 'status',
      status: 503,
      headers: { 'retry-after': '1', 'x-obs-text': 'caf\u00e9' },
      operation: 'wallet.retrieveBalance',
    });
    expect(served.status).toBe(201);
    const faulted = await fetch(`${running.baseUrl}/tasks/wallet-balance`, { headers: credentials(running) });
    expect(faulted.status).toBe(503);
    expect(faulted.headers.get('retry-after')).toBe('1');
  });
});

describe('methods a fetch Request cannot carry', () => {
  it('get 405 with Allow on every route, and CONNECT too', async () => {
    const running = await start();
    const { host } = new URL(running.baseUrl);
    const ask = (method: string, target: string, extra = '') =>
      raw(
        running.baseUrl,
        `${method} ${target} HTTP/1.1\r\nHost: ${host}\r\n${extra}Connection: close\r\n\r\n`,
      );
    // TRACK never reaches a listener: Node's parser answers 400 to a method it does not know.
    for (const method of ['TRACE']) {
      for (const [path, allow] of [
        ['/tasks', /^allow: (GET, POST|POST, GET)$/im],
        ['/rest/tasks/wallet-balance', /^allow: GET$/im],
        ['/tasks/abc', /^allow: GET$/im],
        ['/_sandbox/tasks', /^allow: GET$/im],
        ['/_sandbox/reset', /^allow: POST$/im],
        ['/', /^allow: GET, HEAD$/im],
        ['/pay/anything', /^allow: GET, POST$/im],
      ] as const) {
        const answer = await ask(
          method,
          path,
          `authorization: apikey ${running.apiKey}\r\nx-seller-id: ${running.sellerId}\r\n`,
        );
        expect(answer, `${method} ${path}`).toMatch(/^HTTP\/1\.1 405 /);
        expect(answer, `${method} ${path}`).toMatch(allow);
      }
    }
    expect(await ask('TRACE', '/nothing')).toMatch(/^HTTP\/1\.1 404 /);
    const connect = await ask('CONNECT', `${host}`);
    expect(connect).toMatch(/^HTTP\/1\.1 405 /);
    expect(connect).toMatch(/^allow: GET, HEAD, POST, DELETE$/im);
    expect(running.mock.requests).toHaveLength(0);
    const balance = await fetch(`${running.baseUrl}/tasks/wallet-balance`, { headers: credentials(running) });
    expect(balance.status).toBe(200);
  });
});
