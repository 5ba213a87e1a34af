/**
 * The sandbox at its limits (docs/sandbox.md): a top-up paid past the largest amount, fault rules that
 * could not be served, methods a fetch `Request` cannot carry. Real sockets on 127.0.0.1.
 */
import { connect } from 'node:net';
import { MAX_KWD_AMOUNT } from 'delivery-task-sdk';
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

async function call(url: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
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
      call(`${running.controlUrl}/top-ups/complete`, { method: 'POST', body: JSON.stringify({ paymentUrl }) });
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
