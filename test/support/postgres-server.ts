/**
 * A real PostgreSQL for the Postgres store's and inbox's tests and bench: a throwaway cluster made with
 * `initdb` under a temporary directory, started with `pg_ctl` on a free loopback port, stopped (and its
 * directory removed) by {@link PostgresServer.stop}, and killed with the test process whatever way that
 * process ends. PostgreSQL refuses to run as root: as root, the cluster belongs to the `postgres` user
 * (the Debian package creates it) and its commands run through `runuser`. With `DATABASE_URL` set, that
 * server is used instead and is never stopped.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';

/** The one-line install command, shown wherever PostgreSQL is missing. */
export const POSTGRES_INSTALL_COMMAND = 'apt-get install -y postgresql';

const externalUrl = process.env.DATABASE_URL?.trim() || undefined;

/** Where the Debian package puts the server's binaries (newest version first), else PATH. */
function binDirectory(): string | undefined {
  for (const version of ['17', '16', '15', '14', '13']) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    if (existsSync(join(dir, 'initdb'))) return dir;
  }
  return spawnSync('initdb', ['--version'], { stdio: 'ignore' }).status === 0 ? '' : undefined;
}

const bin = binDirectory();
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const runAs = isRoot ? 'postgres' : undefined;

/** True when there is a PostgreSQL to test against: `DATABASE_URL`, or initdb and a user that may run it. */
export const postgresAvailable =
  externalUrl !== undefined ||
  (bin !== undefined && (!isRoot || spawnSync('id', ['postgres'], { stdio: 'ignore' }).status === 0));

/** A running PostgreSQL the tests talk to. */
export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`, or `DATABASE_URL`. */
  readonly url: string;
  /** Stops the server (immediate shutdown) and removes its directory. A no-op with `DATABASE_URL`. */
  stop(): Promise<void>;
  /** `pg_ctl stop -m immediate`, keeping the data: a crash. Absent with `DATABASE_URL`. */
  crash?(): Promise<void>;
  /** Starts the server again after {@link crash}, on the same port; resolves once it accepts connections. */
  start?(): Promise<void>;
}

/**
 * `describe(title, body)` when PostgreSQL is available. Otherwise a skipped suite whose title carries the
 * install command, except under `CI=true`, where a missing PostgreSQL is a failing test.
 */
export function describeWithPostgres(title: string, body: () => void): void {
  if (postgresAvailable) {
    describe(title, body);
  } else if (process.env.CI === 'true') {
    describe(title, () => {
      it('needs PostgreSQL', () => {
        throw new Error(
          `PostgreSQL (initdb) is not installed and DATABASE_URL is not set: ${POSTGRES_INSTALL_COMMAND}`,
        );
      });
    });
  } else {
    describe.skip(`${title} (skipped: no PostgreSQL; ${POSTGRES_INSTALL_COMMAND})`, body);
  }
}

/** Runs one of the server's programs, as the `postgres` user when this process is root. */
function run(program: string, args: readonly string[]): { status: number | null; output: string } {
  const path = bin === '' || bin === undefined ? program : join(bin, program);
  const command = runAs === undefined ? path : 'runuser';
  const argv = runAs === undefined ? [...args] : ['-u', runAs, '--', path, ...args];
  const result = spawnSync(command, argv, { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.slice(-4000) };
}

/** {@link run} without blocking the event loop (the tests' handlers go on meanwhile). */
function runAsync(
  program: string,
  args: readonly string[],
): Promise<{ status: number | null; output: string }> {
  const path = bin === '' || bin === undefined ? program : join(bin, program);
  const command = runAs === undefined ? path : 'runuser';
  const argv = runAs === undefined ? [...args] : ['-u', runAs, '--', path, ...args];
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  return new Promise((resolve) => {
    child.once('error', (error) => resolve({ status: null, output: `${output}${error.message}` }));
    child.once('exit', (status) => resolve({ status, output }));
  });
}

/**
 * The shell that holds the server: it stops it (immediate mode) as soon as its stdin closes, which also
 * happens when the test process dies however it dies, so no cluster outlives its tests.
 */
const GUARD_SCRIPT = `read -r _
"$0" stop -D "$1" -m immediate -w >/dev/null 2>&1
rm -rf "$2"`;

/**
 * Makes a cluster with `initdb` (trust authentication, no fsync: a test server; `durable: true` keeps
 * `fsync` and `synchronous_commit` on, as in production, for benches) in a temporary directory, starts it
 * on a free 127.0.0.1 port and resolves once it accepts connections (within 30 s). With `DATABASE_URL`
 * set, resolves with that server instead.
 */
export async function startPostgresServer(options: { durable?: boolean } = {}): Promise<PostgresServer> {
  if (externalUrl !== undefined) return { url: externalUrl, stop: async () => {} };
  if (bin === undefined) throw new Error(`initdb not found: ${POSTGRES_INSTALL_COMMAND}`);
  const root = mkdtempSync(join(tmpdir(), 'dts-postgres-'));
  const data = join(root, 'data');
  if (runAs !== undefined) spawnSync('chown', ['-R', runAs, root]);
  const init = run('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'trust',
    '--no-sync',
    '-E',
    'UTF8',
    '--locale=C',
  ]);
  if (init.status !== 0) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`initdb failed:\n${init.output}`);
  }
  const port = await freePort();
  const durability =
    options.durable === true ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
  const settings = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1${durability} -c max_connections=200`;
  const start = run('pg_ctl', [
    'start',
    '-D',
    data,
    '-w',
    '-t',
    '30',
    '-l',
    join(root, 'log'),
    '-o',
    settings,
  ]);
  if (start.status !== 0) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`pg_ctl start failed on port ${port}:\n${start.output}`);
  }
  const pgCtl = bin === '' ? 'pg_ctl' : join(bin, 'pg_ctl');
  const guard: ChildProcess = spawn(
    runAs === undefined ? 'sh' : 'runuser',
    runAs === undefined
      ? ['-c', GUARD_SCRIPT, pgCtl, data, root]
      : ['-u', runAs, '--', 'sh', '-c', GUARD_SCRIPT, pgCtl, data, root],
    { stdio: ['pipe', 'ignore', 'ignore'] },
  );
  let stopped: Promise<void> | undefined;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    crash: async () => {
      const result = await runAsync('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w']);
      if (result.status !== 0) throw new Error(`pg_ctl stop failed:\n${result.output}`);
    },
    start: async () => {
      const result = await runAsync('pg_ctl', [
        'start',
        '-D',
        data,
        '-w',
        '-t',
        '30',
        '-l',
        join(root, 'log'),
        '-o',
        settings,
      ]);
      if (result.status !== 0) throw new Error(`pg_ctl start failed on port ${port}:\n${result.output}`);
    },
    stop: () => {
      stopped ??= (async () => {
        const exited = once(guard, 'exit');
        guard.stdin?.end();
        await exited;
        rmSync(root, { recursive: true, force: true });
      })();
      return stopped;
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
 * Inside a {@link describeWithPostgres} body: a server started before the suite's tests and stopped after
 * them, and with `poolMax`, a `pg.Pool` of that many connections to it, ended before the server stops.
 * Returns getters (valid inside tests).
 */
export function usePostgresServer(poolMax?: number): { server(): PostgresServer; pool(): pg.Pool } {
  let server: PostgresServer | undefined;
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    server = await startPostgresServer();
    if (poolMax !== undefined) pool = new pg.Pool({ connectionString: server.url, max: poolMax });
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });
  return {
    server: () => {
      if (server === undefined) throw new Error('the PostgreSQL server is not started: use it inside a test');
      return server;
    },
    pool: () => {
      if (pool === undefined) throw new Error('no pool: pass poolMax to usePostgresServer');
      return pool;
    },
  };
}
