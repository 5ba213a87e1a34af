import { getEventListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { APIConnectionTimeoutError, APIUserAbortError, DeliveryClient } from '../../src/index.js';

/** A server on 127.0.0.1 that answers a balance, or holds the request open when its path says `stall`. */
let server: Server;
let baseUrl: string;
/** The `x-case` header of each request whose connection closed. */
const closed: string[] = [];
/** The `x-case` headers of the requests of each connection, kept on it (one `close` listener each). */
const casesOf = new WeakMap<Socket, string[]>();

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response) => {
    let cases = casesOf.get(request.socket);
    if (cases === undefined) {
      const started: string[] = [];
      casesOf.set(request.socket, started);
      request.socket.once('close', () => closed.push(...started));
      cases = started;
    }
    cases.push(String(request.headers['x-case']));
    if (request.headers['x-stall'] === 'headers') return;
    if (request.headers['x-stall'] === 'body') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"walletAmount":');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    const page = /[?&]page=(\d+)/.exec(request.url ?? '')?.[1];
    if (page === undefined) response.end('{"walletAmount":7}');
    else
      response.end(
        JSON.stringify({
          tasks: [{ id: `task-${page}` }],
          page: Number(page),
          limit: 1,
          totalPages: 3,
          total: 3,
        }),
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

afterEach(() => vi.restoreAllMocks());

const client = (options: { fetch?: typeof fetch } = {}) =>
  new DeliveryClient({ apiKey: 'key-signal', sellerId: 'seller-signal', baseUrl, maxRetries: 0, ...options });

/** Whether the connection of the request sent with `x-case: <name>` closed within 2 s. */
async function connectionClosed(name: string): Promise<boolean> {
  for (let waited = 0; !closed.includes(name) && waited < 2000; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return closed.includes(name);
}

describe('the attempt signal on the global fetch', () => {
  it('reaches fetch without combining signals on every call', async () => {
    const any = vi.spyOn(AbortSignal, 'any');
    const balance = await client().wallet.retrieveBalance();
    expect(balance.walletAmount).toBe(7);
    expect(any).not.toHaveBeenCalled();
  });

  it('reaches fetch without combining signals when the caller gives a signal and a total timeout, or walks pages', async () => {
    const any = vi.spyOn(AbortSignal, 'any');
    const caller = new AbortController();
    const balance = await client().wallet.retrieveBalance({ signal: caller.signal, totalTimeout: 5000 });
    expect(balance.walletAmount).toBe(7);
    const tasks = await client().tasks.list({}, { signal: caller.signal }).toArray();
    expect(tasks.map((task) => task.id)).toEqual(['task-1', 'task-2', 'task-3']);
    expect(any).not.toHaveBeenCalled();
  });

  it('leaves no listener on a caller signal that outlives many calls, waits and list walks', async () => {
    const caller = new AbortController();
    const many = client();
    for (let call = 0; call < 50; call++) {
      await many.wallet.retrieveBalance({ signal: caller.signal, totalTimeout: 5000 });
      await many.wallet.retrieveBalance({ signal: caller.signal });
    }
    await many.tasks.list({}, { signal: caller.signal }).toArray();
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    // Failed calls clean up too.
    await many.wallet
      .retrieveBalance({
        signal: caller.signal,
        timeout: 50,
        headers: { 'x-case': 'listeners', 'x-stall': 'headers' },
      })
      .catch(() => undefined);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('reaches the global fetch beside the Request ky built, not on a copy of it', async () => {
    const sent = vi.spyOn(globalThis, 'fetch');
    const balance = await client().wallet.retrieveBalance();
    expect(balance.walletAmount).toBe(7);
    expect(sent).toHaveBeenCalledTimes(1);
    const [input, init] = sent.mock.calls[0] as [unknown, RequestInit | undefined];
    expect(input).toBeInstanceOf(Request);
    expect((input as Request).headers.get('x-seller-id')).toBe('seller-signal');
    expect(init?.signal).toBeInstanceOf(AbortSignal);
    expect(init?.signal).not.toBe((input as Request).signal);
  });

  it('still ends a request stalled before its headers at the attempt timeout, closing the connection', async () => {
    const failure = await client()
      .wallet.retrieveBalance({ timeout: 80, headers: { 'x-case': 'stalled-headers', 'x-stall': 'headers' } })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(APIConnectionTimeoutError);
    expect(await connectionClosed('stalled-headers')).toBe(true);
  });

  it('still ends a body stalled after its headers at the attempt timeout, closing the connection', async () => {
    const failure = await client()
      .wallet.retrieveBalance({ timeout: 80, headers: { 'x-case': 'stalled-body', 'x-stall': 'body' } })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(APIConnectionTimeoutError);
    expect(await connectionClosed('stalled-body')).toBe(true);
  });

  it('still ends a request when the caller aborts', async () => {
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 50);
    const failure = await client()
      .wallet.retrieveBalance({
        signal: caller.signal,
        headers: { 'x-case': 'caller-abort', 'x-stall': 'headers' },
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(APIUserAbortError);
    expect(await connectionClosed('caller-abort')).toBe(true);
  });
});

describe('the attempt signal on a fetch of the caller', () => {
  it('is on the Request, for a fetch that reads only the Request', async () => {
    // A wrapper that drops fetch's second argument, as many do.
    const onlyTheRequest = (input: RequestInfo | URL) => fetch(input);
    const failure = await client({ fetch: onlyTheRequest as typeof fetch })
      .wallet.retrieveBalance({ timeout: 80, headers: { 'x-case': 'caller-fetch', 'x-stall': 'headers' } })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(APIConnectionTimeoutError);
    expect(await connectionClosed('caller-fetch')).toBe(true);
  });
});
