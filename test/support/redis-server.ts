/**
 * A real redis-server for the Redis store's tests and bench: started on a free loopback port, empty
 * (no RDB, no AOF unless asked, files in a temporary directory), killed with the test process whatever
 * way that process ends. With `REDIS_URL` set, that server is used instead and is never stopped or restarted.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import IORedis from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';

/** The one-line install command, shown wherever Redis is missing. */
export const REDIS_INSTALL_COMMAND = 'apt-get install -y redis-server';

const externalUrl = process.env.REDIS_URL?.trim() || undefined;

/** True when the tests start their own redis-server (no `REDIS_URL`), so they may stop and restart it. */
export const ownsRedisServer = externalUrl === undefined;

/** True when there is a Redis to test against: `REDIS_URL` is set, or `redis-server` is on PATH. */
export const redisAvailable =
  externalUrl !== undefined || spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

/** A running Redis the tests talk to. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>`, or `REDIS_URL`. */
  readonly url: string;
  /** The TCP port. */
  readonly port: number;
  /** Kills the server (SIGKILL: a crash, not a shutdown). Throws with `REDIS_URL`. */
  stop(): Promise<void>;
  /**
   * Kills the server and starts it again on the same port with the same settings (empty without
   * persistence; with `--appendonly yes`, from its file); resolves once it answers PING. Throws with `REDIS_URL`.
   */
  restart(): Promise<void>;
}

/** How {@link startRedisServer} starts its own server (ignored with `REDIS_URL`). */
export interface RedisServerOptions {
  /** Arguments after the defaults (`--save '' --appendonly no`), which they override: `['--appendonly', 'yes']`. */
  args?: readonly string[];
  /** Lines of a redis.conf read first, e.g. `rename-command CONFIG ""` (a command line cannot rename). */
  conf?: readonly string[];
}

/**
 * `describe(title, body)` when Redis is available. Otherwise a skipped suite whose title carries the
 * install command, except under `CI=true`, where a missing Redis is a failing test: CI must run these.
 */
export function describeWithRedis(title: string, body: () => void): void {
  if (redisAvailable) {
    describe(title, body);
  } else if (process.env.CI === 'true') {
    describe(title, () => {
      it('needs redis-server', () => {
        throw new Error(`redis-server is not installed and REDIS_URL is not set: ${REDIS_INSTALL_COMMAND}`);
      });
    });
  } else {
    describe.skip(`${title} (skipped: no redis-server; ${REDIS_INSTALL_COMMAND})`, body);
  }
}

/**
 * Starts an empty redis-server on a free 127.0.0.1 port (its files, if any, in a temporary directory
 * removed once the server is gone, kept through `restart()`) and resolves once it answers PING (within 10 s, else rejects with its output).
 * With `REDIS_URL` set, resolves with that server instead.
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  if (externalUrl !== undefined) {
    const refuse = async (): Promise<void> => {
      throw new Error('REDIS_URL is set: the tests use that server and never stop or restart it');
    };
    return {
      url: externalUrl,
      port: Number(new URL(externalUrl).port || 6379),
      stop: refuse,
      restart: refuse,
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'dts-redis-'));
  const first: string[] = [];
  // Made again before each launch: the guard of a server that ended removed it.
  const prepare = (): void => {
    mkdirSync(dir, { recursive: true });
    if (options.conf !== undefined) writeFileSync(join(dir, 'redis.conf'), `${options.conf.join('\n')}\n`);
  };
  if (options.conf !== undefined) first.push(join(dir, 'redis.conf'));
  const args = ['--dir', dir, ...(options.args ?? [])];
  let port = await freePort();
  let child: ChildProcess | undefined;
  for (let attempt = 1; child === undefined; attempt++) {
    try {
      prepare();
      child = await launch(port, args, first, dir);
    } catch (error) {
      // Another process took the port between the probe and the launch: try another one.
      if (attempt >= 3) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
      port = await freePort();
    }
  }
  let running: ChildProcess | undefined = child;
  const end = async (): Promise<void> => {
    const server = running;
    running = undefined;
    if (server !== undefined) await kill(server);
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: async () => {
      await end();
      rmSync(dir, { recursive: true, force: true });
    },
    restart: async () => {
      prepare();
      writeFileSync(join(dir, 'restarting'), '');
      await end();
      prepare();
      running = await launch(port, args, first, dir);
      rmSync(join(dir, 'restarting'), { force: true });
    },
  };
}

/** A port free on 127.0.0.1 right now, from the kernel. */
async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  if (address === null || typeof address === 'string') throw new Error('no TCP address for the port probe');
  return address.port;
}

/**
 * The shell around redis-server: it kills the server (SIGKILL) as soon as its stdin closes, which
 * happens when {@link kill} ends it and also when the test process dies however it dies (the kernel
 * closes the pipe, SIGKILL included), so no server outlives its tests; and it exits when the server
 * exits, with the server's status.
 */
const GUARD_SCRIPT = `exec 3<&0
redis-server "$@" </dev/null &
server=$!
{ read -r _ <&3; kill -9 "$server" 2>/dev/null; } &
watcher=$!
wait "$server"
status=$?
kill "$watcher" 2>/dev/null
if [ -n "$DTS_REDIS_DIR" ] && [ ! -e "$DTS_REDIS_DIR/restarting" ]; then rm -rf "$DTS_REDIS_DIR"; fi
exit "$status"`;

/**
 * Starts redis-server on `port` (with `extraArgs`, e.g. cluster mode) under the guard shell and resolves
 * once it answers PING; see {@link startRedisServer}. Resolves with a function that kills it.
 */
export async function launchRedisServer(
  port: number,
  extraArgs: readonly string[],
): Promise<() => Promise<void>> {
  const child = await launch(port, extraArgs);
  return () => kill(child);
}

/** A port free on 127.0.0.1 right now, from the kernel. */
export const freeRedisPort = (): Promise<number> => freePort();

/** redis-server on `port`: the conf file `first` (if any), the defaults, then `extraArgs`. */
async function launch(
  port: number,
  extraArgs: readonly string[] = [],
  first: readonly string[] = [],
  ownDir = '',
): Promise<ChildProcess> {
  const args = [
    ...first,
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    ...extraArgs,
  ];
  // The guard removes `ownDir` once the server is gone (unless it is restarting), however the tests ended.
  const child = spawn('sh', ['-c', GUARD_SCRIPT, 'redis-guard', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, DTS_REDIS_DIR: ownDir },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  const exited = once(child, 'exit').then(() => {
    throw new Error(`redis-server on port ${port} exited at start:\n${output}`);
  });
  try {
    await Promise.race([waitForPong('127.0.0.1', port), exited]);
  } catch (error) {
    await kill(child);
    throw error;
  }
  return child;
}

/** Ends the guard shell (closing its stdin makes it SIGKILL the server) and waits until both are gone. */
async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.stdin?.end();
  await exited;
}

/** Resolves once `host:port` answers `PING` with `+PONG`; rejects after 10 s. */
async function waitForPong(host: string, port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (await answersPing(host, port)) return;
    if (Date.now() > deadline) throw new Error(`Redis at ${host}:${port} did not answer PING within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function answersPing(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    let reply = '';
    const finish = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(1000, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
  });
}

/** Round trips a {@link useRedisClient} `counting` client made: commands sent while none was in flight. */
export interface RoundTrips {
  count: number;
}

/**
 * Inside a {@link describeWithRedis} body: a server started before the suite's tests (stopped after them
 * unless it is `REDIS_URL`'s) and an ioredis client to it, with a client that records each command's name
 * in `commands` before sending it, and counts in `roundTrips` each command sent while no other was
 * waiting for its reply (one sent beside another shares its round trip). Returns getters (valid inside
 * tests).
 */
export function useRedisClient(): {
  io(): IORedis;
  counting(
    commands: string[],
    roundTrips?: RoundTrips,
  ): { call(command: string, ...args: string[]): Promise<unknown> };
} {
  let server: RedisServer | undefined;
  let io: IORedis | undefined;
  beforeAll(async () => {
    server = await startRedisServer();
    io = new IORedis(server.url);
  });
  afterAll(async () => {
    io?.disconnect();
    if (ownsRedisServer) await server?.stop();
  });
  const client = (): IORedis => {
    if (io === undefined) throw new Error('the Redis server is not started: use it inside a test');
    return io;
  };
  return {
    io: client,
    counting: (commands, roundTrips) => {
      let waiting = 0;
      return {
        call: (command, ...args) => {
          commands.push(command);
          if (waiting++ === 0 && roundTrips !== undefined) roundTrips.count++;
          return client()
            .call(command, ...args)
            .finally(() => {
              waiting--;
            });
        },
      };
    },
  };
}
