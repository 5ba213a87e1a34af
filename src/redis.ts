/**
 * `delivery-task-sdk/redis`: {@link redisStore}, the `DeliveryStore` over Redis that several instances
 * share, and {@link redisInbox}, the webhook handler's durable inbox (README "Running several
 * instances"). It takes a connected ioredis (5, 6) or node-redis (`redis` 5, 6) client and imports
 * neither library, not even its types (both are optional peer dependencies). The main entry never loads it.
 *
 * ```ts
 * import { DeliveryClient } from 'delivery-task-sdk';
 * import { redisStore } from 'delivery-task-sdk/redis';
 * import Redis from 'ioredis';
 *
 * const store = redisStore(new Redis(process.env.REDIS_URL), { prefix: 'dts:' });
 * await store.ready(); // at boot: rejects an allkeys-* maxmemory-policy
 * const client = new DeliveryClient({ store });
 * ```
 * @module delivery-task-sdk/redis
 */
export type {
  IoredisClientLike,
  NodeRedisClientLike,
  NodeRedisClusterLike,
  RedisClientLike,
  RedisWarningLogger,
} from './redis/commands.js';
export { redisInbox } from './redis/inbox.js';
export type { RedisInbox, RedisInboxOptions } from './redis/inbox-options.js';
export { type RedisStore, type RedisStoreOptions, redisStore } from './redis/store.js';
