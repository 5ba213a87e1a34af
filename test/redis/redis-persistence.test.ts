/**
 * `redisInbox` checks at start that its Redis keeps what it is given (docs/several-instances.md "Redis
 * settings"): against real redis-servers started with each setting (none, `appendonly yes`, RDB snapshots
 * alone, `CONFIG` renamed away), through both client libraries, at `ready()` and at the first command.
 */
import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/index.js';
import { type RedisClientLike, redisInbox, redisStore } from '../../src/redis.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import {
  describeWithRedis,
  ownsRedisServer,
  type RedisServer,
  startRedisServer,
} from '../support/redis-server.js';
import { fetchWebhook } from '../webhooks/fixtures.js';

type NodeRedis = Awaited<ReturnType<ReturnType<typeof createClient>['connect']>>;

/** A redis-server started with `args` (or `conf` lines) and a client of each library, for one describe. */
function useServer(options: { args?: string[]; conf?: string[] }): () => [string, RedisClientLike][] {
  let server: RedisServer | undefined;
  let io: IORedis | undefined;
  let nodeRedis: NodeRedis | undefined;
  beforeAll(async () => {
    server = await startRedisServer(options);
    io = new IORedis(server.url, { maxRetriesPerRequest: 1 }).on('error', () => {});
    nodeRedis = await createClient({ url: server.url })
      .on('error', () => {})
      .connect();
  }, 30_000);
  afterAll(async () => {
    io?.disconnect();
    await nodeRedis?.destroy();
    await server?.stop();
  });
  return () => {
    if (io === undefined || nodeRedis === undefined) throw new Error('the Redis server is not started');
    return [
      ['ioredis', io],
      ['node-redis', nodeRedis],
    ];
  };
}

const entry = () => ({
  taskId: `task-${randomUUID()}`,
  kind: 'accepted',
  body: '{}',
  receivedAt: Date.now(),
});

/** A logger that keeps each warning. */
function recording(): { warnings: string[]; logger: { warn(message: string): void } } {
  const warnings: string[] = [];
  return { warnings, logger: { warn: (message) => void warnings.push(message) } };
}

describeWithRedis('redisInbox: the Redis keeps what it is given', () => {
  // Each describe starts a server of its own with a setting: REDIS_URL's server cannot be set so.
  const describeOwn = describe.runIf(ownsRedisServer);

  describeOwn('a Redis that keeps nothing on disk (appendonly no, save "")', () => {
    const libraries = useServer({});

    it('is refused at ready() with a ConfigurationError that says what to set, and at the first write', async () => {
      for (const [library, client] of libraries()) {
        const inbox = redisInbox(client, { stream: `none-${randomUUID()}` });
        const error = await inbox.ready().catch((caught: unknown) => caught);
        expect(error, library).toBeInstanceOf(ConfigurationError);
        expect(error, library).toMatchObject({ option: 'appendonly' });
        const { message } = error as ConfigurationError;
        expect(message, library).toContain('CONFIG SET appendonly yes');
        expect(message, library).toContain('redis.conf');
        expect(message, library).toContain('volatile: true');
        // Without ready(), the first command runs the check: nothing is written.
        const lazy = redisInbox(client, { stream: `none-${randomUUID()}` });
        await expect(lazy.append(entry()), library).rejects.toBeInstanceOf(ConfigurationError);
      }
    });

    it('answers 503 (one warning per webhook) and stores nothing when the inbox is refused', async () => {
      for (const [library, client] of libraries()) {
        const stream = `none-${randomUUID()}`;
        const { warnings, logger } = recording();
        const handler = createWebhookHandler({
          inbox: redisInbox(client, { stream }),
          inboxWorkers: false,
          onEvent: () => {},
          logger: { ...logger, debug() {}, info() {}, error() {} },
        });
        expect((await fetchWebhook(handler, `task-${randomUUID()}`, 'accepted')).status, library).toBe(503);
        expect(
          warnings.filter((message) => message.includes('appendonly')),
          library,
        ).toHaveLength(1);
        await handler.close();
      }
    });

    it('is accepted with volatile: true, without a warning (the eviction policy still checked)', async () => {
      for (const [library, client] of libraries()) {
        const { warnings, logger } = recording();
        const inbox = redisInbox(client, { stream: `none-${randomUUID()}`, volatile: true, logger });
        await inbox.ready();
        await inbox.append(entry());
        expect(await inbox.claim('worker', 10), library).toHaveLength(1);
        expect(warnings, library).toEqual([]);
      }
    });

    it('leaves redisStore alone (its records are covered when lost), and refuses a volatile option that is not a boolean', async () => {
      for (const [library, client] of libraries()) {
        await expect(
          redisStore(client, { prefix: `none-${randomUUID()}:` }).ready(),
          library,
        ).resolves.toBeUndefined();
        expect(() => redisInbox(client, { volatile: 'yes' as unknown as boolean }), library).toThrow(
          expect.objectContaining({ name: 'ConfigurationError', option: 'volatile' }),
        );
      }
    });
  });

  describeOwn('a Redis with appendonly yes', () => {
    const libraries = useServer({ args: ['--appendonly', 'yes'] });

    it('is accepted at ready() without a word, and the inbox works', async () => {
      for (const [library, client] of libraries()) {
        const { warnings, logger } = recording();
        const inbox = redisInbox(client, { stream: `aof-${randomUUID()}`, logger });
        await inbox.ready();
        await inbox.append(entry());
        expect(await inbox.claim('worker', 10), library).toHaveLength(1);
        expect(warnings, library).toEqual([]);
      }
    });
  });

  describeOwn('a Redis saving RDB snapshots alone (save "60 1")', () => {
    const libraries = useServer({ args: ['--save', '60 1'] });

    it('is accepted with one warning that states what a restart loses: up to 60 s of webhooks', async () => {
      for (const [library, client] of libraries()) {
        const { warnings, logger } = recording();
        const inbox = redisInbox(client, { stream: `rdb-${randomUUID()}`, logger });
        await inbox.ready();
        await inbox.ready();
        await inbox.append(entry());
        expect(warnings, library).toHaveLength(1);
        expect(warnings[0], library).toContain('save "60 1"');
        expect(warnings[0], library).toContain('up to 60 s of them');
        expect(warnings[0], library).toContain('CONFIG SET appendonly yes');
      }
    });
  });

  describeOwn('a Redis whose CONFIG command is renamed away (rename-command CONFIG "")', () => {
    const libraries = useServer({ conf: ['rename-command CONFIG ""'] });

    it('warns once that the check could not run, and proceeds', async () => {
      for (const [library, client] of libraries()) {
        const { warnings, logger } = recording();
        const inbox = redisInbox(client, { stream: `renamed-${randomUUID()}`, logger });
        await inbox.ready();
        await inbox.append(entry());
        await inbox.append(entry());
        expect(await inbox.claim('worker', 10), library).toHaveLength(2);
        expect(warnings, library).toHaveLength(1);
        expect(warnings[0], library).toMatch(
          /could not read the Redis settings maxmemory-policy, appendonly and save/,
        );
        expect(warnings[0], library).toContain('the check did not run');
        const store = recording();
        await redisStore(client, { prefix: `renamed-${randomUUID()}:`, logger: store.logger }).ready();
        expect(store.warnings, library).toHaveLength(1);
        expect(store.warnings[0], library).toContain('maxmemory-policy');
      }
    });
  });
});
