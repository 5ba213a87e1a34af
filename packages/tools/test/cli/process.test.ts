/**
 * `delivery-task` as a real child process (`node --import tsx src/cli.ts`) with its configuration
 * in environment variables, against the mock served on 127.0.0.1: exit codes, what goes to stdout and
 * what to stderr, SIGINT, and the same order file created from two processes.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeliveryClient, type Task } from 'delivery-task-sdk';
import { VERSION } from 'delivery-task-sdk/internal';
import {
  createMockDeliveryService,
  type MockHttpServer,
  startMockHttpServer,
} from 'delivery-task-sdk/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { orderParams } from '../../../../test/support/order-params.js';
import {
  CLI_PROCESS_TEST_TIMEOUT_MS,
  cliEnv,
  killCliProcesses,
  runCliProcess,
  startCliProcess,
} from '../support/cli.js';

const API_KEY = 'proc-secret-key-Wd72';
const SELLER_ID = 'proc-seller-Ng40';
const mock = createMockDeliveryService({
  apiKey: API_KEY,
  sellerId: SELLER_ID,
  account: { type: 'wallet', balance: 5 },
});
let server: MockHttpServer;
let env: Record<string, string>;
let folder: string;

beforeAll(async () => {
  server = await startMockHttpServer(mock);
  env = cliEnv(mock, server.url);
  folder = await mkdtemp(join(tmpdir(), 'delivery-task-cli-process-'));
});
afterEach(async () => {
  await killCliProcesses();
  mock.reset();
});
afterAll(async () => {
  await server.close();
  await rm(folder, { recursive: true, force: true });
});

function client(): DeliveryClient {
  return new DeliveryClient({ apiKey: API_KEY, sellerId: SELLER_ID, baseUrl: server.url, logLevel: 'off' });
}

function expectNoSecrets(text: string): void {
  expect(text).not.toContain(API_KEY);
  expect(text).not.toContain(SELLER_ID);
}

describe('exit codes and streams of the process', { timeout: CLI_PROCESS_TEST_TIMEOUT_MS }, () => {
  it('exits 0 with the version, and with JSON on stdout and nothing on stderr for a listing', async () => {
    const version = await runCliProcess(['--version'], {});
    expect(version).toEqual({ code: 0, signal: null, stdout: `${VERSION}\n`, stderr: '' });
    const task = await client().tasks.create(orderParams('ORD-P1'));
    const listing = await runCliProcess(['tasks', 'list', '--json'], env);
    expect(listing.code).toBe(0);
    expect(listing.stderr).toBe('');
    expect((JSON.parse(listing.stdout) as Task[]).map((each) => each.id)).toEqual([task.id]);
    expectNoSecrets(listing.stdout);
  });

  it('exits 2 for bad arguments and for a missing variable, with one line on stderr and nothing on stdout', async () => {
    const bad = await runCliProcess(['tasks', 'list', '--limit', 'many'], env);
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toBe(
      'delivery-task: tasks list: --limit must be an integer from 1 to 1000000, got "many" (see delivery-task tasks list --help)\n',
    );
    const { DELIVERY_BASE_URL: _omitted, ...withoutUrl } = env;
    const unconfigured = await runCliProcess(['branches'], withoutUrl);
    expect(unconfigured).toMatchObject({ code: 2, stdout: '' });
    expect(unconfigured.stderr).toMatch(
      /^delivery-task: ConfigurationError: Invalid DELIVERY_BASE_URL: expected the service's base URL \(set the environment variable DELIVERY_BASE_URL\), got nothing\n$/,
    );
    expect(mock.requests).toHaveLength(0);
  });

  it('exits 3 for a refused key, 4 for an unknown task, 5 for a low balance, each with one secret-free line', async () => {
    const refused = await runCliProcess(['wallet', 'balance'], {
      ...env,
      DELIVERY_SELLER_ID: 'someone-else-77',
    });
    expect(refused).toMatchObject({ code: 3, stdout: '' });
    expect(refused.stderr).toMatch(
      /^delivery-task: AuthenticationError: 401 Unauthorized: GET \/tasks\/wallet-balance .*\n$/,
    );
    expect(refused.stderr).not.toContain('someone-else-77');

    mock.inject({
      operation: 'tasks.retrieve',
      kind: 'status',
      status: 404,
      headers: { 'x-request-id': 'req-proc-9' },
    });
    const missing = await runCliProcess(['tasks', 'get', 'abc'], env);
    expect(missing).toMatchObject({ code: 4, stdout: '' });
    expect(missing.stderr).toMatch(
      /^delivery-task: NotFoundError: 404 Not Found: GET \/tasks\/abc .*\(request id req-proc-9\)\n$/,
    );

    const file = join(folder, 'far.json');
    // Kuwait City → Wafra, about 90 km: a fee near 10 KWD, above the 5 KWD balance.
    await writeFile(
      file,
      JSON.stringify({ ...orderParams('ORD-FAR'), deliveryLocation: { latitude: 28.56, longitude: 48.08 } }),
    );
    const poor = await runCliProcess(['tasks', 'create', '--file', file], env);
    expect(poor).toMatchObject({ code: 5, stdout: '' });
    expect(poor.stderr).toMatch(
      /^delivery-task: InsufficientBalanceError: 402 Payment Required: POST \/tasks/,
    );
    expect(mock.tasks).toHaveLength(0);
    for (const run of [refused, missing, poor]) {
      expect(run.stderr.split('\n')).toHaveLength(2);
      expectNoSecrets(run.stderr);
    }
  });
});

describe('tasks watch in a process', { timeout: CLI_PROCESS_TEST_TIMEOUT_MS }, () => {
  it('stops on SIGINT with exit 130, after printing the status it saw', async () => {
    const task = await client().tasks.create(orderParams('ORD-SIG'));
    const child = startCliProcess(['tasks', 'watch', task.id ?? '', '--interval', '0.1'], env);
    await child.waitForStdout((stdout) => stdout.includes('pending'));
    child.kill('SIGINT');
    const result = await child.done;
    expect(result.code).toBe(130);
    expect(result.stdout).toMatch(/^\d{4}-\d\d-\d\dT[\d:]+Z {2}pending\n$/);
    expect(result.stderr).toBe('delivery-task: tasks watch: interrupted\n');
  });

  it('ends with exit 0 when the task reaches a final status', async () => {
    const task = await client().tasks.create(orderParams('ORD-FIN'));
    const child = startCliProcess(['tasks', 'watch', task.id ?? '', '--interval', '0.1', '--json'], env);
    await child.waitForStdout((stdout) => stdout.includes('pending'));
    await mock.advance(task.id ?? '', 'cancelled');
    const result = await child.done;
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as Array<{ status: string }>).map((change) => change.status)).toEqual([
      'pending',
      'cancelled',
    ]);
  });
});

describe('the same order file from two processes', { timeout: CLI_PROCESS_TEST_TIMEOUT_MS }, () => {
  it('one after the other, creates one task: the second process finds it by order number and sends no POST', async () => {
    const file = join(folder, 'sequential.json');
    await writeFile(file, JSON.stringify(orderParams('ORD-SEQ')));
    const first = await runCliProcess(['tasks', 'create', '--file', file, '--json'], env);
    const second = await runCliProcess(['tasks', 'create', '--file', file, '--json'], env);
    expect([first.code, second.code]).toEqual([0, 0]);
    const created = JSON.parse(first.stdout) as { created: boolean; task: Task };
    const found = JSON.parse(second.stdout) as { created: boolean; task: Task };
    expect(created.created).toBe(true);
    expect(found).toMatchObject({ created: false, task: { id: created.task.id } });
    expect(second.stderr).toContain(`order ORD-SEQ already has task ${created.task.id}: nothing created`);
    expect(mock.tasks).toHaveLength(1);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(mock.wallet.feesCharged).toBe(1);
  });

  it('at the same moment, both create when both lookups answer before either create (the documented limit)', async () => {
    const file = join(folder, 'together.json');
    await writeFile(file, JSON.stringify(orderParams('ORD-RACE')));
    // Hold both lookups' answers (computed on arrival, before any task exists) for 4 s, longer than the
    // two processes take to start one after the other.
    mock.inject({ operation: 'tasks.list', kind: 'delay', ms: 4000, times: 2 });
    const [first, second] = await Promise.all([
      runCliProcess(['tasks', 'create', '--file', file, '--json'], env),
      runCliProcess(['tasks', 'create', '--file', file, '--json'], env),
    ]);
    expect([first?.code, second?.code]).toEqual([0, 0]);
    expect(mock.requestsFor('tasks.list').map((lookup) => [lookup.query.search, lookup.fault])).toEqual([
      ['^ORD-RACE$', 'delay'],
      ['^ORD-RACE$', 'delay'],
    ]);
    // Both lookups reached the service before either create did.
    expect(mock.requests.map((request) => request.operation)).toEqual([
      'tasks.list',
      'tasks.list',
      'tasks.create',
      'tasks.create',
    ]);
    expect((JSON.parse(first?.stdout ?? '') as { created: boolean }).created).toBe(true);
    expect((JSON.parse(second?.stdout ?? '') as { created: boolean }).created).toBe(true);
    // Without a store shared by the processes, nothing links the two runs: two tasks, two fees.
    expect(mock.tasks.map((task) => task.orderNumber)).toEqual(['ORD-RACE', 'ORD-RACE']);
    expect(mock.wallet.feesCharged).toBe(2);
  });
});
