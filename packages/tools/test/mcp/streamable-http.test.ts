/**
 * `createMcpServer` in a merchant's own agent backend over Streamable HTTP: one server per session, as
 * `docs/mcp.md` shows, on a node:http server on 127.0.0.1, driven by the MCP SDK's Streamable HTTP
 * client. Sessions are apart (quotes, tokens) but share the client's spending count.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { DeliveryClient } from 'delivery-task-sdk';
import { type Sandbox, startSandbox } from 'delivery-task-tools/sandbox';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp.js';
import { booking, bookTwoStep, call, dataOf, quote, refusalOf } from './support.js';

let sandbox: Sandbox;
let http: HttpServer;
let url: URL;

beforeAll(async () => {
  sandbox = await startSandbox();
  const client = new DeliveryClient({
    apiKey: sandbox.apiKey,
    sellerId: sandbox.sellerId,
    baseUrl: sandbox.baseUrl,
    logLevel: 'off',
  });
  const policy = { allow: ['read', 'create'] as const, dailyCapKwd: 3 };
  const transports = new Map<string, StreamableHTTPServerTransport>();
  http = createServer(async (request, response) => {
    const sessionId = request.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (transport === undefined) {
      if (sessionId !== undefined) {
        response.writeHead(404).end();
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, created),
      });
      created.onclose = () => {
        if (created.sessionId !== undefined) transports.delete(created.sessionId);
      };
      await createMcpServer(client, policy).connect(created);
      transport = created;
    }
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
});
afterAll(async () => {
  http?.closeAllConnections();
  await new Promise((resolve) => http?.close(resolve));
  await sandbox?.close();
});

async function session(): Promise<Client> {
  const client = new Client({ name: 'http-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

it('serves each session its own quotes and tokens, and one spending count for the client', async () => {
  const first = await session();
  const second = await session();
  expect((await first.listTools()).tools.map((tool) => tool.name)).toContain('create_delivery');

  const estimateId = await quote(first);
  expect(refusalOf(await call(second, 'create_delivery', booking('HTTP-1', estimateId))).rule).toBe('quote');

  expect(dataOf(await bookTwoStep(first, 'HTTP-1')).status).toBe('booked');
  // 1.815 + 1.815 passes the 3 KWD cap, whichever session books.
  expect(refusalOf(await bookTwoStep(second, 'HTTP-2'))).toMatchObject({
    rule: 'dailyCapKwd',
    spentTodayKwd: '1.815',
    roomLeftTodayKwd: '1.185',
  });
  expect(sandbox.mock.tasks).toHaveLength(1);
  await first.close();
  await second.close();
});
