/**
 * The sandbox as a hostile client meets it (docs/sandbox.md, "Bounds"): unparsable request targets,
 * random requests, costly regular expressions, floods of large and deep bodies in the request log, a
 * webhook receiver that never stops answering, requests naming a foreign `Host`, guessable payment
 * links. Real sockets on 127.0.0.1, the sandbox in this process.
 */
import { createServer, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { type Sandbox, startSandbox } from 'delivery-task-tools/sandbox';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { orderParams } from '../../../../test/support/order-params.js';

let sandbox: Sandbox | undefined;
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function start(options: Parameters<typeof startSandbox>[0] = {}): Promise<Sandbox> {
  sandbox = await startSandbox({ port: 0, ...options });
  return sandbox;
}

const credentials = (running: Sandbox) => ({
  authorization: `apikey ${running.apiKey}`,
  'x-seller-id': running.sellerId,
});

/** Sends raw bytes and resolves with what came back before the server closed the connection (or 2 s passed). */
function raw(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
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

async function healthy(running: Sandbox): Promise<void> {
  const response = await fetch(`${running.baseUrl}/tasks/wallet-balance`, { headers: credentials(running) });
  expect(response.status).toBe(200);
}

describe('every request gets an answer', () => {
  it.each(['//[', '//[::1', 'http://[', '/tasks/%', '*', '/_sandbox/%zz', '//[/_sandbox/requests'])(
    'answers the request target %j without crashing',
    async (target) => {
      const running = await start();
      const answer = await raw(
        running.baseUrl,
        `GET ${target} HTTP/1.1\r\nHost: ${new URL(running.baseUrl).host}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 [1-4]\d\d /);
      await healthy(running);
    },
  );

  it('answers 400 to a target no URL parser reads, and reads //x/tasks as a path, not a host', async () => {
    const running = await start();
    const ask = (target: string) =>
      raw(
        running.baseUrl,
        `GET ${target} HTTP/1.1\r\nHost: ${new URL(running.baseUrl).host}\r\nConnection: close\r\n\r\n`,
      );
    expect(await ask('//[')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await ask('http://[')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await ask('//x/tasks')).toMatch(/^HTTP\/1\.1 404 /);
  });

  // 300 requests one after another: up to 60 ms each with both cores busy (npm run test:stress).
  it('answers a few hundred random requests without a 500 and keeps serving', async () => {
    const running = await start();
    const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'PROPFIND'];
    const segment = fc.oneof(
      fc.constantFrom(
        'tasks',
        'rest',
        '_sandbox',
        'requests',
        'faults',
        'advance',
        'wallet-topup',
        'wallet-balance',
        'estimate',
        'branches',
        'pay',
        'events',
        'reset',
        '%',
        '..',
        '[',
        '',
      ),
      fc.string({ maxLength: 8 }).map(encodeURIComponent),
    );
    const body = fc.oneof(
      fc.constant(undefined),
      fc.string({ maxLength: 200 }),
      fc.json({ maxDepth: 4 }),
      fc.constant('{"a":'.repeat(2000)),
    );
    const request = fc.record({
      method: fc.constantFrom(...methods),
      path: fc.array(segment, { maxLength: 5 }).map((parts) => `/${parts.join('/')}`),
      query: fc.oneof(
        fc.constant(''),
        fc.webQueryParameters().map((query) => `?${query}`),
      ),
      body,
      authenticated: fc.boolean(),
      contentType: fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', ''),
    });
    const samples = fc.sample(request, { seed: 27, numRuns: 300 });
    const statuses = new Map<number, number>();
    for (const sample of samples) {
      const headers: Record<string, string> = sample.authenticated ? credentials(running) : {};
      if (sample.contentType !== '') headers['content-type'] = sample.contentType;
      const body = sample.method === 'GET' || sample.method === 'HEAD' ? undefined : sample.body;
      const response = await fetch(`${running.baseUrl}${sample.path}${sample.query}`, {
        method: sample.method,
        headers,
        body: body ?? null,
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      // `/` answers 503 while the dashboard is not built; nothing else may be a 5xx.
      if (!(sample.path === '/' && response.status === 503)) {
        expect(response.status, `${sample.method} ${sample.path}${sample.query}`).toBeLessThan(500);
      }
    }
    expect(statuses.size).toBeGreaterThan(3);
    await healthy(running);
  }, 60_000);
});

describe('bodies nested too deep', () => {
  it('refuses them before parsing, on service routes and control endpoints', async () => {
    const running = await start();
    // 40 KB: under the control endpoints' 64 KiB limit too.
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    for (const [url, headers] of [
      [`${running.baseUrl}/tasks`, { ...credentials(running), 'content-type': 'application/json' }],
      [`${running.controlUrl}/faults`, {}],
    ] as const) {
      const response = await fetch(url, { method: 'POST', headers, body: deep });
      expect(response.status, url).toBe(400);
      expect(((await response.json()) as { message: string }).message).toBe(
        'body: nested deeper than 64 levels',
      );
    }
  });
});

describe('one search is bounded whatever the data', () => {
  it('refuses a regular expression whose scan of one long field passes the step budget', async () => {
    // A create refuses a name over 1,000 characters; a seed task (the developer's own data) is not bound.
    const running = await start({ tasks: [{ ...orderParams('ORD-1'), customerName: 'a'.repeat(200_000) }] });
    const search = encodeURIComponent('((a?){100}){9}q');
    const response = await fetch(`${running.baseUrl}/tasks?search=${search}&ignoreRegex=false`, {
      headers: credentials(running),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(/steps/);
  });
});

describe('the request log is bounded', () => {
  it('keeps a request without valid credentials only as a summary', async () => {
    const running = await start();
    const body = JSON.stringify({ secret: 'x'.repeat(10_000) });
    const response = await fetch(`${running.baseUrl}/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(401);
    const [entry] = running.mock.requests;
    expect(entry?.status).toBe(401);
    expect(entry?.body).toEqual({ truncated: true, bytes: body.length, prefix: expect.any(String) });
    expect(JSON.stringify(entry).length).toBeLessThan(2048);
  });

  it('keeps a body beyond the entry bounds as its size and a prefix', async () => {
    const running = await start();
    const body = JSON.stringify({ ...orderParams('ORD-1'), note: 'n'.repeat(100_000) });
    await fetch(`${running.baseUrl}/tasks`, {
      method: 'POST',
      headers: { ...credentials(running), 'content-type': 'application/json' },
      body,
    });
    const [entry] = running.mock.requests;
    expect(entry?.body).toMatchObject({ truncated: true, bytes: body.length });
    expect(JSON.stringify(entry).length).toBeLessThan(20_000);
  });

  it('answers its pages after a body nested 100,000 deep', async () => {
    const running = await start();
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    await fetch(`${running.baseUrl}/tasks`, {
      method: 'POST',
      headers: { ...credentials(running), 'content-type': 'application/json' },
      body: deep,
    });
    expect(running.mock.requests[0]?.body).toMatchObject({ truncated: true, bytes: deep.length });
    const response = await fetch(`${running.controlUrl}/requests`);
    expect(response.status).toBe(200);
  });

  it('keeps at most its byte bound over a flood of large bodies', async () => {
    const running = await start({ maxBodyBytes: 4 * 1024 * 1024 });
    const body = JSON.stringify({
      ...orderParams('ORD-1'),
      items: Array.from({ length: 2000 }, (_, index) => ({ index })),
    });
    for (let index = 0; index < 200; index++) {
      await fetch(`${running.baseUrl}/tasks/estimate`, {
        method: 'POST',
        headers: { ...credentials(running), 'content-type': 'application/json' },
        body,
      });
    }
    const total = running.mock.requests.reduce((sum, entry) => sum + JSON.stringify(entry).length, 0);
    expect(total).toBeLessThan(4 * 1024 * 1024);
  });

  it('serves the log in pages, newest first, with a cursor to the older ones', async () => {
    const running = await start();
    for (let index = 0; index < 25; index++) {
      await fetch(`${running.baseUrl}/tasks?page=${index + 1}`, { headers: credentials(running) });
    }
    const first = (await (await fetch(`${running.controlUrl}/requests?limit=10`)).json()) as {
      requests: Array<{ seq: number; query: Record<string, string> }>;
      total: number;
      before?: number;
    };
    expect(first.requests.map((request) => request.query.page)).toEqual(
      Array.from({ length: 10 }, (_, index) => String(16 + index)),
    );
    expect(first.total).toBe(25);
    expect(first.before).toBe(first.requests[0]?.seq);
    const second = (await (
      await fetch(`${running.controlUrl}/requests?limit=10&before=${first.before}`)
    ).json()) as {
      requests: Array<{ query: Record<string, string> }>;
      before?: number;
    };
    expect(second.requests.map((request) => request.query.page).at(-1)).toBe('15');
    const third = (await (
      await fetch(`${running.controlUrl}/requests?limit=10&before=${second.before}`)
    ).json()) as {
      requests: unknown[];
      before?: number;
    };
    expect(third.requests).toHaveLength(5);
    expect(third.before).toBeUndefined();
    const wrong = await fetch(`${running.controlUrl}/requests?limit=100000`);
    expect(wrong.status).toBe(400);
  });
});

describe('the webhook sender', () => {
  it('reads a few KiB of an answer and discards the rest', async () => {
    const chunk = Buffer.alloc(64 * 1024, 120);
    const receiver = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/plain' });
      const pump = () => {
        while (!response.destroyed && response.write(chunk));
      };
      response.on('drain', pump);
      pump();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          receiver.close(() => resolve());
          receiver.closeAllConnections();
        }),
    );
    const address = receiver.address() as { port: number };
    const running = await start({ webhookUrl: `http://127.0.0.1:${address.port}/hook` });
    const created = (await (
      await fetch(`${running.baseUrl}/tasks`, {
        method: 'POST',
        headers: { ...credentials(running), 'content-type': 'application/json' },
        body: JSON.stringify(orderParams('ORD-1')),
      })
    ).json()) as { data: { createTask: { id: string } } };
    await running.mock.advance(created.data.createTask.id);
    const [delivery] = running.mock.webhookDeliveries;
    expect(delivery?.responseStatus).toBe(200);
    expect(delivery?.error).toBeUndefined();
  });
});

describe('DNS rebinding and guessable links', () => {
  it('answers a service route addressed to a foreign Host 403 without a control token', async () => {
    const running = await start();
    const port = new URL(running.baseUrl).port;
    for (const path of ['/tasks', '/tasks/wallet-balance', '/', '/pay/anything', '/_sandbox/requests']) {
      const answer = await raw(
        running.baseUrl,
        `GET ${path} HTTP/1.1\r\nHost: rebind.test:${port}\r\nAuthorization: apikey ${running.apiKey}\r\nx-seller-id: ${running.sellerId}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer, path).toMatch(/^HTTP\/1\.1 403 /);
    }
    const own = await raw(
      running.baseUrl,
      `GET /tasks HTTP/1.1\r\nHost: localhost:${port}\r\nAuthorization: apikey ${running.apiKey}\r\nx-seller-id: ${running.sellerId}\r\nConnection: close\r\n\r\n`,
    );
    expect(own).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('reads the body of a request it refuses, so that a client still sending it gets the answer', async () => {
    const running = await start();
    const { port } = new URL(running.baseUrl);
    const cases = [
      ['POST', `rebind.test:${port}`, '/tasks', 403],
      ['DELETE', `127.0.0.1:${port}`, '/', 405],
      ['POST', `127.0.0.1:${port}`, 'http://[', 400],
    ] as const;
    for (const [method, host, path, expected] of cases) {
      const outcome = await new Promise<{ status: number; errors: string[] }>((resolve) => {
        const errors: string[] = [];
        let status = 0;
        const request = httpRequest(
          { host: '127.0.0.1', port, method, path, headers: { host, 'content-length': String(600_000) } },
          (response) => {
            status = response.statusCode ?? 0;
            response.resume();
          },
        );
        request.on('error', (error: NodeJS.ErrnoException) => errors.push(error.code ?? 'error'));
        request.on('close', () => resolve({ status, errors }));
        // Half the body, a pause in which the answer comes, then the rest.
        request.write(Buffer.alloc(300_000, 120));
        setTimeout(() => request.end(Buffer.alloc(300_000, 120)), 200);
      });
      expect(outcome, `${method} ${path}`).toEqual({ status: expected, errors: [] });
    }
  });

  it('answers a host named in allowedHosts', async () => {
    const running = await start({ allowedHosts: ['sandbox.test'] });
    const port = new URL(running.baseUrl).port;
    const answer = await raw(
      running.baseUrl,
      `GET /tasks HTTP/1.1\r\nHost: sandbox.test:${port}\r\nAuthorization: apikey ${running.apiKey}\r\nx-seller-id: ${running.sellerId}\r\nConnection: close\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('issues payment links whose tokens are random, not counted', async () => {
    const running = await start();
    const tokens: string[] = [];
    for (let index = 0; index < 3; index++) {
      const response = await fetch(`${running.baseUrl}/tasks/wallet-topup`, {
        method: 'POST',
        headers: { ...credentials(running), 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 10 }),
      });
      const { paymentUrl } = (await response.json()) as { paymentUrl: string };
      tokens.push(new URL(paymentUrl).pathname.split('/').at(-1) ?? '');
    }
    expect(new Set(tokens).size).toBe(3);
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{22,}$/);
      expect(token).not.toContain('6d6f636b00');
    }
  });
});
