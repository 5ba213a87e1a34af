/**
 * A real 3-master Redis Cluster for the cluster tests: three redis-server processes in cluster mode on
 * free loopback ports (node files in a temporary directory), joined with `redis-cli --cluster create`,
 * ready once every node reports `cluster_state:ok`. Killed with the test process whatever way it ends
 * (each node runs under the guard of `redis-server.ts`).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeRedisPort, launchRedisServer } from './redis-server.js';

/** True when redis-cli is there to join a cluster (redis-server's Debian package ships it). */
export const redisClusterAvailable = spawnSync('redis-cli', ['--version'], { stdio: 'ignore' }).status === 0;

export interface RedisCluster {
  /** The nodes' ports (all masters). */
  readonly ports: readonly number[];
  stop(): Promise<void>;
}

/** Starts `masters` nodes (with `args` after the cluster's, e.g. `['--appendonly', 'yes']`) and joins them. */
export async function startRedisCluster(masters = 3, args: readonly string[] = []): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'dts-redis-cluster-'));
  const ports: number[] = [];
  const kills: (() => Promise<void>)[] = [];
  const stop = async () => {
    await Promise.all(kills.map((kill) => kill()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    while (ports.length < masters) {
      const port = await freeRedisPort();
      if (ports.includes(port)) continue;
      // A directory per node: their append-only files would otherwise share one.
      mkdirSync(join(dir, String(port)));
      kills.push(
        await launchRedisServer(port, [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout',
          '2000',
          '--dir',
          join(dir, String(port)),
          ...args,
        ]),
      );
      ports.push(port);
    }
    const create = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (create.status !== 0)
      throw new Error(`redis-cli --cluster create failed:\n${create.stdout}${create.stderr}`);
    const deadline = Date.now() + 20_000;
    for (const port of ports) {
      for (;;) {
        const info = spawnSync('redis-cli', ['-p', String(port), 'cluster', 'info'], {
          encoding: 'utf8',
        }).stdout;
        if (info.includes('cluster_state:ok')) break;
        if (Date.now() > deadline) throw new Error(`Redis Cluster node ${port} not ready:\n${info}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { ports, stop };
}
