/**
 * The daily cap shared through a real redis-server: three sessions booking at once, each with its own
 * client and its own Redis connection, in this process (in-memory transport) and as three
 * `delivery-task mcp --redis` processes (stdio), against one sandbox. The day's spending never passes
 * the cap by one fils, what the wallet paid equals what Redis counted, and an order booked from three
 * processes at once is booked once.
 */

import { DeliveryClient } from 'delivery-task-sdk';
import { storeKey } from 'delivery-task-sdk/internal';
import { redisStore } from 'delivery-task-sdk/redis';
import { type Sandbox, startSandbox } from 'delivery-task-tools/sandbox';
import IORedis from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeWithRedis,
  type RedisServer,
  startRedisServer,
} from '../../../../test/support/redis-server.js';
import { kuwaitDay } from '../../src/mcp/daily-spend.js';
import { createMcpServer } from '../../src/mcp.js';
import {
  call,
  connectInMemory,
  connectStdio,
  dataOf,
  ORIGIN,
  refusalOf,
  type ToolResult,
} from './support.js';

/** Delivery points whose fees from the mock's origin differ (to the fils), so the cap is met unevenly. */
const DESTINATIONS = [
  { latitude: 29.3339, longitude: 48.0761 },
  { latitude: 29.3375, longitude: 47.6581 },
  { latitude: 29.2851, longitude: 47.9589 },
  { latitude: 29.0769, longitude: 48.0838 },
];

describeWithRedis('the daily cap shared through Redis', () => {
  let redis: RedisServer;
  let sandbox: Sandbox;
  const connections: IORedis[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    sandbox = await startSandbox({ account: { type: 'wallet', balance: 1000 } });
  });
  afterAll(async () => {
    for (const connection of connections) connection.disconnect();
    await sandbox?.close();
    await redis?.stop().catch(() => {});
  });

  /** Books orders `<prefix>-1`, `-2`, … through `client` until a refusal; returns every booking's result. */
  async function bookUntilRefused(
    client: Parameters<typeof call>[0],
    prefix: string,
  ): Promise<{ booked: ToolResult[]; refusal: ToolResult }> {
    const booked: ToolResult[] = [];
    for (let index = 1; index < 100; index++) {
      const to = DESTINATIONS[index % DESTINATIONS.length] ?? ORIGIN;
      const estimateId = dataOf(await call(client, 'estimate_delivery', { from: ORIGIN, to })).estimateId;
      const args = { orderNumber: `${prefix}-${index}`, deliveryLocation: to, estimateId };
      const first = await call(client, 'create_delivery', args);
      if (first.isError) return { booked, refusal: first };
      const token = dataOf(first).confirmationToken;
      const second = await call(client, 'create_delivery', { ...args, confirmationToken: token });
      if (second.isError) return { booked, refusal: second };
      booked.push(second);
    }
    throw new Error('never refused');
  }

  /** What Redis counted for today, fils. */
  async function counted(prefix: string): Promise<number> {
    const reader = new IORedis(redis.url);
    connections.push(reader);
    const scope = { baseUrl: `${sandbox.baseUrl}/`, sellerId: sandbox.sellerId };
    const value = await reader.get(`${prefix}${storeKey(scope, 'mcp-spend', kuwaitDay(Date.now()))}`);
    return Number(value ?? 0);
  }

  it('three in-process sessions, each with its own client and connection, never pass the cap by one fils', async () => {
    const capFils = 15_000;
    const paidBefore = sandbox.mock.wallet.feesChargedFils;
    const sessions = await Promise.all(
      [1, 2, 3].map(async () => {
        const connection = new IORedis(redis.url);
        connections.push(connection);
        const client = new DeliveryClient({
          apiKey: sandbox.apiKey,
          sellerId: sandbox.sellerId,
          baseUrl: sandbox.baseUrl,
          logLevel: 'off',
        });
        const store = redisStore(connection, { prefix: 'inproc:' });
        return connectInMemory(
          createMcpServer(client, { allow: ['read', 'create'], dailyCapKwd: '15', store }),
        );
      }),
    );
    const outcomes = await Promise.all(
      sessions.map((session, index) => bookUntilRefused(session, `IN-${index}`)),
    );
    const spent = await counted('inproc:');
    const paid = sandbox.mock.wallet.feesChargedFils - paidBefore;
    expect(spent).toBeLessThanOrEqual(capFils);
    expect(paid).toBe(spent);
    const bookings = outcomes.reduce((sum, outcome) => sum + outcome.booked.length, 0);
    expect(bookings).toBeGreaterThanOrEqual(4);
    for (const { refusal } of outcomes) {
      const refused = refusalOf(refusal);
      expect(refused.rule).toBe('dailyCapKwd');
      // Refused only because this fee did not fit in what was left.
      const fee = Math.round(Number(refused.feeKwd) * 1000);
      expect(spent + fee).toBeGreaterThan(capFils);
    }
    for (const session of sessions) await session.close();
  }, 60_000);

  it('three delivery-task mcp processes sharing --redis never pass the cap, and book one order once', async () => {
    const env = {
      DELIVERY_API_KEY: sandbox.apiKey,
      DELIVERY_SELLER_ID: sandbox.sellerId,
      DELIVERY_BASE_URL: sandbox.baseUrl,
    };
    const paidBefore = sandbox.mock.wallet.feesChargedFils;
    const tasksBefore = sandbox.mock.tasks.length;
    const processes = await Promise.all(
      [1, 2, 3].map(() =>
        connectStdio(['--allow', 'create', '--daily-cap-kwd', '6.5', '--redis', redis.url], env),
      ),
    );
    try {
      // The same order from the three processes at once: one task, one fee.
      const prepared = await Promise.all(
        processes.map(async ({ client }) => {
          const estimateId = dataOf(
            await call(client, 'estimate_delivery', { from: ORIGIN, to: DESTINATIONS[0] }),
          ).estimateId;
          const args = { orderNumber: 'SHARED-1', deliveryLocation: DESTINATIONS[0], estimateId };
          return {
            client,
            args,
            token: dataOf(await call(client, 'create_delivery', args)).confirmationToken,
          };
        }),
      );
      const same = await Promise.all(
        prepared.map(({ client, args, token }) =>
          call(client, 'create_delivery', { ...args, confirmationToken: token }),
        ),
      );
      expect(same.filter((result) => result.structuredContent?.status === 'booked')).toHaveLength(1);
      expect(sandbox.mock.tasks.filter((task) => task.orderNumber === 'SHARED-1')).toHaveLength(1);

      const outcomes = await Promise.all(
        processes.map(({ client }, index) => bookUntilRefused(client, `PROC-${index}`)),
      );
      const spent = await counted('dts:');
      const paid = sandbox.mock.wallet.feesChargedFils - paidBefore;
      expect(spent).toBeLessThanOrEqual(6_500);
      expect(paid).toBe(spent);
      for (const { refusal } of outcomes) expect(refusalOf(refusal).rule).toBe('dailyCapKwd');
      const booked = outcomes.reduce((sum, outcome) => sum + outcome.booked.length, 0);
      expect(sandbox.mock.tasks.length - tasksBefore).toBe(booked + 1);
      for (const { stderr } of processes) {
        expect(stderr()).toContain('spending counted in Redis');
        expect(stderr()).not.toContain(sandbox.apiKey);
      }
    } finally {
      await Promise.all(processes.map((each) => each.close()));
    }
  }, 120_000);
});
