/**
 * The day's spending counter: reservations never pass the cap, whatever the number of concurrent
 * reservations, over the memory store and over a real redis-server; releases give the room back.
 */

import { type DeliveryStore, memoryStore } from 'delivery-task-sdk';
import { storeKey } from 'delivery-task-sdk/internal';
import { redisStore } from 'delivery-task-sdk/redis';
import IORedis from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describeWithRedis,
  type RedisServer,
  startRedisServer,
} from '../../../../test/support/redis-server.js';
import { DailySpend, kuwaitDay } from '../../src/mcp/daily-spend.js';
import { Refusal } from '../../src/mcp/refusal.js';

const SCOPE = { baseUrl: 'https://delivery.test/', sellerId: 'seller' };

it('counts days in Kuwait time (UTC+3)', () => {
  expect(kuwaitDay(Date.parse('2026-11-24T20:59:59Z'))).toBe('2026-11-24');
  expect(kuwaitDay(Date.parse('2026-11-24T21:00:00Z'))).toBe('2026-11-25');
});

/** 60 reservations of 1.234 KWD at once against a 50 KWD cap: exactly 40 fit, 49.360 KWD counted. */
async function concurrentReservations(store: DeliveryStore): Promise<void> {
  const spend = new DailySpend(
    store,
    { baseUrl: 'https://delivery.test/', sellerId: `seller-${Math.random()}` },
    50_000,
    Date.now,
  );
  const results = await Promise.all(Array.from({ length: 60 }, () => spend.reserve(1234)));
  expect(results.filter((result) => result.ok)).toHaveLength(40);
  expect(await spend.spent()).toBe(40 * 1234);
  for (const result of results) expect(result.spentFils).toBeLessThanOrEqual(50_000);
}

describe('DailySpend over the memory store', () => {
  it('reserves up to the cap and no further, and a release gives the room back', async () => {
    const spend = new DailySpend(memoryStore(), SCOPE, 5000, Date.now);
    expect(await spend.reserve(3000)).toMatchObject({ ok: true, spentFils: 3000 });
    expect(await spend.reserve(2001)).toMatchObject({ ok: false, spentFils: 3000 });
    expect(await spend.reserve(2000)).toMatchObject({ ok: true, spentFils: 5000 });
    expect(await spend.adjust(spend.today(), -3000)).toBe(2000);
    expect(await spend.reserve(3000)).toMatchObject({ ok: true, spentFils: 5000 });
  });

  it('never passes the cap under concurrent reservations', () => concurrentReservations(memoryStore()));

  it('refuses rather than guesses when the counter is unreadable', async () => {
    const store = memoryStore();
    const spend = new DailySpend(store, SCOPE, 5000, Date.now);
    await spend.reserve(1);
    const key = storeKey(SCOPE, 'mcp-spend', spend.today());
    await store.compareAndSet(key, '1', 'garbage', 60_000);
    await expect(spend.reserve(1)).rejects.toBeInstanceOf(Refusal);
  });
});

describeWithRedis('DailySpend over Redis', () => {
  let redis: RedisServer;
  const connections: IORedis[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    for (const connection of connections) connection.disconnect();
    await redis?.stop().catch(() => {});
  });

  it('never passes the cap under concurrent reservations from three connections', async () => {
    const stores = [1, 2, 3].map(() => {
      const connection = new IORedis(redis.url);
      connections.push(connection);
      return redisStore(connection, { prefix: 'spend-test:' });
    });
    const scope = { baseUrl: 'https://delivery.test/', sellerId: `seller-${Math.random()}` };
    const spends = stores.map((store) => new DailySpend(store, scope, 50_000, Date.now));
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, index) => spends[index % 3]?.reserve(1234)),
    );
    expect(results.filter((result) => result?.ok)).toHaveLength(40);
    expect(await spends[0]?.spent()).toBe(40 * 1234);
  });
});
