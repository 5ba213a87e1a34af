/**
 * A wrong `baseUrl` path (README "Errors"), over real sockets on 127.0.0.1: a 404 from a route that does
 * not exist never reads as "no such task". An operation without an id in its path (create, list,
 * estimate, branches, wallet) answered 404 is an `APIError` that is not a `NotFoundError`, whose message
 * says to check baseUrl; a retrieve answered 404 stays a `NotFoundError`, with the hint when the body
 * does not look like the service's not-found answer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIError, DeliveryClient, NotFoundError } from '../../src/index.js';
import { createMockDeliveryService, type MockHttpServer, startMockHttpServer } from '../../src/testing.js';
import { orderParams } from '../support/order-params.js';

const mock = createMockDeliveryService();
let server: MockHttpServer;
/** A server that answers every request as Express does for a route it lacks. */
let express: Server;
let expressUrl: string;

beforeAll(async () => {
  server = await startMockHttpServer(mock);
  express = createServer((request, response) => {
    response
      .writeHead(404, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!DOCTYPE html><html><body><pre>Cannot ${request.method} ${request.url}</pre></body></html>`);
  });
  await new Promise<void>((resolve) => express.listen(0, '127.0.0.1', resolve));
  expressUrl = `http://127.0.0.1:${(express.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await server.close();
  mock.close();
  await new Promise((resolve) => express.close(resolve));
});

const clientOf = (baseUrl: string) =>
  new DeliveryClient({
    apiKey: mock.apiKey,
    sellerId: mock.sellerId,
    baseUrl,
    logLevel: 'off',
    maxRetries: 0,
    reconciliation: { checks: 1, intervalMs: 5 },
  });

const HINT = /check baseUrl/;

describe('a 404 on an operation without an id', () => {
  const calls = {
    'wallet.retrieveBalance': (client: DeliveryClient) => client.wallet.retrieveBalance(),
    'branches.list': (client: DeliveryClient) => client.branches.list(),
    'tasks.list': (client: DeliveryClient) => client.tasks.list(),
    'tasks.estimate': (client: DeliveryClient) =>
      client.tasks.estimate({
        from: { latitude: 29.37, longitude: 47.97 },
        to: { latitude: 29.33, longitude: 48.07 },
      }),
    'tasks.create': (client: DeliveryClient) => client.tasks.create(orderParams('BASE-1')),
    'wallet.topUp': (client: DeliveryClient) => client.wallet.topUp({ amount: 5 }),
  } as const;

  for (const [operation, callOf] of Object.entries(calls)) {
    it(`${operation} with an extra path segment is an APIError 404, not a NotFoundError, saying to check baseUrl`, async () => {
      const error = await callOf(clientOf(`${server.url}/v1`)).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(APIError);
      expect(error).not.toBeInstanceOf(NotFoundError);
      expect((error as APIError).status).toBe(404);
      expect((error as APIError).message).toMatch(HINT);
      expect((error as APIError).message).toContain('/v1/tasks');
    });
  }

  it('reads the same from a server answering an HTML "Cannot GET" page', async () => {
    const error = await clientOf(expressUrl)
      .wallet.retrieveBalance()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect(error).not.toBeInstanceOf(NotFoundError);
    expect((error as APIError).message).toMatch(HINT);
    // Nothing was sent twice and the mock saw nothing.
    expect(mock.requests).toHaveLength(0);
  });
});

describe('a 404 on tasks.retrieve', () => {
  it('is a NotFoundError without the hint when the service says the task does not exist', async () => {
    const error = await clientOf(server.url)
      .tasks.retrieve('000000000000000000000000')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).message).not.toMatch(HINT);
  });

  it('is a NotFoundError with the hint when the body is a missing route, not the service', async () => {
    for (const baseUrl of [`${server.url}/v1`, expressUrl]) {
      const error = await clientOf(baseUrl)
        .tasks.retrieve('000000000000000000000000')
        .catch((caught: unknown) => caught);
      expect(error, baseUrl).toBeInstanceOf(NotFoundError);
      expect((error as NotFoundError).message, baseUrl).toMatch(HINT);
    }
  });
});
