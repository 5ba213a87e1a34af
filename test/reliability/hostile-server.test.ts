/**
 * A hostile service over real sockets on 127.0.0.1 (test/support/hostile-server.ts), with the real mock
 * behind it: answers that lie after the service committed, bodies that never end or explode, redirects
 * and headers made to break the client. Every failure must be a DeliveryError, every create exactly once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ClientOptions, DeliveryClient } from '../../src/index.js';
import { type HostileServer, startHostileServer } from '../support/hostile-server.js';
import { orderParams } from '../support/mock-service.js';

let hostile: HostileServer;
const hostileClient = (overrides: ClientOptions = {}) =>
  new DeliveryClient({
    apiKey: hostile.mock.apiKey,
    sellerId: hostile.mock.sellerId,
    baseUrl: hostile.url,
    logLevel: 'off',
    reconciliation: { checks: 2, intervalMs: 5 },
    ...overrides,
  });
beforeAll(async () => {
  hostile = await startHostileServer();
});
beforeEach(() => hostile.mock.reset());
afterAll(() => hostile.close());

describe('answers to a create that are not rejections', () => {
  it.each([301, 302, 303, 307, 308])(
    'treats a %i after the service committed as created: returns the task, never sends again',
    async (status) => {
      const orderNumber = `REDIR-${status}`;
      hostile.use(async (request, response, { forward }) => {
        const answer = await forward();
        if (request.method === 'POST') {
          response.writeHead(status, { location: 'https://elsewhere.example/tasks/1' }).end();
        } else {
          response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(answer.body);
        }
      });
      const task = await hostileClient().tasks.create(orderParams(orderNumber));
      expect(task.orderNumber).toBe(orderNumber);
      expect(hostile.mock.tasks.filter((stored) => stored.orderNumber === orderNumber)).toHaveLength(1);
      expect(hostile.mock.requestsFor('tasks.create')).toHaveLength(1);
    },
  );

  it('reconciles a 4xx whose error body nests 2,000 levels deep instead of taking it as a rejection', async () => {
    hostile.use(async (request, response, { forward }) => {
      const answer = await forward();
      if (request.method === 'POST') {
        response.writeHead(400, { 'content-type': 'application/json' }).end(`${'['.repeat(2000)}${']'.repeat(2000)}`);
      } else {
        response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(answer.body);
      }
    });
    const task = await hostileClient().tasks.create(orderParams('DEEP-1'));
    expect(task.orderNumber).toBe('DEEP-1');
    expect(hostile.mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(hostile.mock.requestsFor('tasks.list').length).toBeGreaterThan(0);
  });
});
