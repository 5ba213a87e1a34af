/**
 * No input makes the sandbox answer 5xx unless a fault rule asks for it (docs/sandbox.md, "Bounds"):
 * thousands of random requests over raw sockets on 127.0.0.1 — methods Node parses (TRACE and CONNECT
 * included), request targets, header names and values, bodies, and fault rules with random headers (their
 * statuses below 500, so that any 5xx is the sandbox's own).
 */
import { connect } from 'node:net';
import { type Sandbox, startSandbox } from 'delivery-task-tools/sandbox';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';

const REQUESTS = 3000;
const CONCURRENCY = 8;

let sandbox: Sandbox | undefined;

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** The status code of one raw exchange (0: the connection closed without one; -1: none within 5 s). */
function exchange(baseUrl: string, bytes: Buffer): Promise<{ status: number; head: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    let answer = '';
    let settled = false;
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    const finish = (status: number) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve({ status, head: answer.slice(0, 300) });
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      answer += chunk;
      const line = /^HTTP\/1\.[01] (\d{3}) /.exec(answer);
      // A stall-body fault never finishes its body: the status line is the answer.
      if (line && answer.includes('\r\n\r\n')) finish(Number(line[1]));
    });
    socket.setTimeout(5000, () => finish(-1));
    socket.on('close', () => finish(Number(/^HTTP\/1\.[01] (\d{3}) /.exec(answer)?.[1] ?? 0)));
    socket.on('error', () => finish(Number(/^HTTP\/1\.[01] (\d{3}) /.exec(answer)?.[1] ?? 0)));
  });
}

const token = fc.stringMatching(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,20}$/);
const headerValue = fc.oneof(
  fc.stringMatching(/^[\x20-\x7e]{0,40}$/),
  fc.constantFrom('1', 'application/json', 'text/plain', 'gzip', 'close', '\u00e9t\u00e9', ' padded '),
);

/** A fault rule as a client might send it: kinds, operations and header maps drawn at random. */
const faultRule = fc.record(
  {
    kind: fc.constantFrom(
      'status',
      'network-error',
      'commit-then-drop',
      'delay',
      'stall-body',
      'invalid-json',
      'repeat-page',
      'sort',
      'drift',
      'nonsense',
    ),
    status: fc.oneof(fc.integer({ min: 200, max: 499 }), fc.constantFrom(204, 304, 99, 600, '503')),
    headers: fc.dictionary(
      fc.oneof(token, fc.constantFrom('retry after', 'content-length', 'x\r\ny', '')),
      fc.oneof(headerValue, fc.constantFrom('a\r\nb', 'nul\u0000', '\u0627', 7)),
      { maxKeys: 4 },
    ),
    ms: fc.integer({ min: 0, max: 30 }),
    times: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.constantFrom('Infinity', 0, -1)),
    operation: fc.constantFrom(
      'tasks.create',
      'tasks.list',
      'tasks.retrieve',
      'wallet.retrieveBalance',
      'nope',
    ),
    body: fc.json({ maxDepth: 2 }).map((text) => JSON.parse(text) as unknown),
  },
  { requiredKeys: ['kind'] },
);

function requests(baseUrl: string, apiKey: string, sellerId: string): Buffer[] {
  const { host } = new URL(baseUrl);
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
    ),
    fc.constantFrom(
      'estimate',
      'branches',
      'pay',
      'events',
      'reset',
      'webhooks',
      'wallet',
      'top-ups',
      'complete',
    ),
    fc.constantFrom('%', '..', '[', '', '%2F', '%00', '*', '_dashboard', 'dashboard.js', '0', '1', 'resend'),
    fc.string({ maxLength: 10 }).map(encodeURIComponent),
  );
  const target = fc.oneof(
    { weight: 6, arbitrary: fc.array(segment, { maxLength: 5 }).map((parts) => `/${parts.join('/')}`) },
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        '/tasks',
        '/rest/tasks',
        '/tasks/wallet-balance',
        '/tasks/branches',
        '/tasks/estimate',
        '/tasks/wallet-topup',
        '/tasks/abc',
        '/_sandbox/faults',
        '/_sandbox/requests',
      ),
    },
    { weight: 2, arbitrary: fc.webQueryParameters().map((query) => `/tasks?${query}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('//[', 'http://[', '*', '//x/tasks', '/%', 'http://h/tasks', host),
    },
  );
  const body = fc.oneof(
    { withCrossShrink: false },
    fc.constant(''),
    fc.string({ maxLength: 200 }),
    fc.json({ maxDepth: 4 }),
    { weight: 3, arbitrary: faultRule.map((rule) => JSON.stringify(rule)) },
    fc.constantFrom(
      '{"status":"delivered"}',
      '{"paymentUrl":"http://127.0.0.1/pay/x"}',
      '{"amount":9007199254740.991}',
      '{"amount":5}',
      JSON.stringify({ orderNumber: 'FUZZ', deliveryLocation: { latitude: 29.3, longitude: 48 } }),
      `${'['.repeat(100)}${']'.repeat(100)}`,
    ),
  );
  const sample = fc.record({
    method: fc.constantFrom(
      'GET',
      'POST',
      'POST',
      'POST',
      'PUT',
      'DELETE',
      'PATCH',
      'HEAD',
      'OPTIONS',
      'TRACE',
      'CONNECT',
      'PROPFIND',
      'SEARCH',
      'PURGE',
      'LOCK',
      'M-SEARCH',
      'QUERY',
    ),
    target,
    authenticated: fc.boolean(),
    origin: fc.constantFrom(undefined, 'http://evil.test', `http://${host}`, 'null'),
    site: fc.constantFrom(undefined, 'cross-site', 'same-origin', 'none'),
    headers: fc.array(fc.tuple(token, headerValue), { maxLength: 6 }),
    contentType: fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', ''),
    body,
    chunked: fc.boolean(),
  });
  return fc.sample(sample, { seed: 3838, numRuns: REQUESTS }).map((drawn) => {
    const lines = [`${drawn.method} ${drawn.target} HTTP/1.1`, `Host: ${host}`];
    if (drawn.authenticated) lines.push(`Authorization: apikey ${apiKey}`, `x-seller-id: ${sellerId}`);
    if (drawn.origin !== undefined) lines.push(`Origin: ${drawn.origin}`);
    if (drawn.site !== undefined) lines.push(`Sec-Fetch-Site: ${drawn.site}`);
    if (drawn.contentType !== '') lines.push(`Content-Type: ${drawn.contentType}`);
    const reserved = /^(host|content-length|transfer-encoding|connection|expect|upgrade)$/i;
    for (const [name, value] of drawn.headers)
      if (!reserved.test(name)) lines.push(`${name}: ${value.trim()}`);
    const payload = Buffer.from(drawn.body, 'utf8');
    let framed: Buffer;
    if (drawn.chunked && payload.length > 0) {
      lines.push('Transfer-Encoding: chunked');
      framed = Buffer.concat([
        Buffer.from(`${payload.length.toString(16)}\r\n`),
        payload,
        Buffer.from('\r\n0\r\n\r\n'),
      ]);
    } else {
      lines.push(`Content-Length: ${payload.length}`);
      framed = payload;
    }
    lines.push('Connection: close');
    return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), framed]);
  });
}

describe('the sandbox under random requests', () => {
  it(`answers ${REQUESTS} of them without a 5xx, and keeps serving`, { timeout: 240_000 }, async () => {
    sandbox = await startSandbox({ port: 0 });
    const running = sandbox;
    const all = requests(running.baseUrl, running.apiKey, running.sellerId);
    const statuses = new Map<number, number>();
    const fiveHundreds: string[] = [];
    let next = 0;
    const worker = async () => {
      for (let index = next++; index < all.length; index = next++) {
        const bytes = all[index] as Buffer;
        const { status, head } = await exchange(running.baseUrl, bytes);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        const requestLine = bytes.toString('latin1', 0, Math.min(bytes.length, 120)).split('\r\n')[0] ?? '';
        // `/` answers 503 while the dashboard is not built: the one 5xx the sandbox means.
        const unbuilt =
          status === 503 && /^GET \/ |^HEAD \/ /.test(requestLine) && head.includes('text/plain');
        if (status >= 500 && !unbuilt)
          fiveHundreds.push(`${status} ← ${requestLine} :: ${head.split('\r\n\r\n')[1] ?? ''}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(fiveHundreds.slice(0, 10), `${fiveHundreds.length} answers of 5xx`).toEqual([]);
    // The fuzz reached many kinds of answers, not one refusal repeated.
    expect(statuses.size, JSON.stringify(Object.fromEntries(statuses))).toBeGreaterThan(4);
    running.mock.clearFaults();
    const balance = await fetch(`${running.baseUrl}/tasks/wallet-balance`, {
      headers: { authorization: `apikey ${running.apiKey}`, 'x-seller-id': running.sellerId },
    });
    expect(balance.status).toBe(200);
  });
});
