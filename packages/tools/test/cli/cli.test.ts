/**
 * `delivery-task` run in process (`runCli` with a capturing io) against the mock served over real
 * sockets on 127.0.0.1: every operator command, human and `--json` output, exit codes by error class,
 * the error line, and creating the same order twice.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeliveryClient, kwd, type Task } from 'delivery-task-sdk';
import { VERSION } from 'delivery-task-sdk/internal';
import {
  createMockDeliveryService,
  type MockHttpServer,
  startMockHttpServer,
} from 'delivery-task-sdk/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { orderParams } from '../../../../test/support/order-params.js';
import { usage } from '../../src/cli/main.js';
import { EXIT_CODES } from '../../src/cli/operator/exit-codes.js';
import { OPERATOR_COMMANDS } from '../../src/cli/operator.js';
import { cliEnv, runInProcess } from '../support/cli.js';

const API_KEY = 'cli-secret-key-5Rt8Wq';
const SELLER_ID = 'cli-seller-Hx31';
const mock = createMockDeliveryService({
  apiKey: API_KEY,
  sellerId: SELLER_ID,
  baseUrl: 'https://delivery.test/rest',
});
let server: MockHttpServer;
let env: Record<string, string>;
let client: DeliveryClient;
let folder: string;

beforeAll(async () => {
  server = await startMockHttpServer(mock);
  env = cliEnv(mock, server.url);
  folder = await mkdtemp(join(tmpdir(), 'delivery-task-cli-'));
});
// A fresh client per test: a client remembers the orders it created, and the mock forgets them at reset.
beforeEach(() => {
  client = new DeliveryClient({ apiKey: API_KEY, sellerId: SELLER_ID, baseUrl: server.url, logLevel: 'off' });
});
afterEach(() => mock.reset());
afterAll(async () => {
  await server.close();
  await rm(folder, { recursive: true, force: true });
});

const run = (
  argv: readonly string[],
  overrides: Parameters<typeof runInProcess>[1] | undefined = undefined,
) => runInProcess(argv, overrides ?? { env });

function expectNoSecrets(text: string): void {
  expect(text).not.toContain(API_KEY);
  expect(text).not.toContain(SELLER_ID);
}

/** The single line written on stderr (and that there is only one). */
function errorLine(stderr: string): string {
  const lines = stderr.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  return lines[0] ?? '';
}

async function orderFile(name: string, params: unknown): Promise<string> {
  const path = join(folder, name);
  await writeFile(path, typeof params === 'string' ? params : JSON.stringify(params));
  return path;
}

describe('help, version and usage errors', () => {
  it('prints the usage with every command, the environment and the exit code table on --help', async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(usage());
    for (const spec of OPERATOR_COMMANDS) expect(result.stdout).toContain(`  ${spec.words.join(' ')}`);
    for (const name of ['DELIVERY_API_KEY', 'DELIVERY_SELLER_ID', 'DELIVERY_BASE_URL']) {
      expect(result.stdout).toContain(name);
    }
    for (const entry of EXIT_CODES) {
      expect(result.stdout).toMatch(
        new RegExp(`^  ${entry.code} +${entry.meaning.replace(/[()]/g, '\\$&')}$`, 'm'),
      );
    }
  });

  it('prints the version on --version', async () => {
    expect(await run(['--version'])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it('prints the usage on stderr and exits 2 without arguments', async () => {
    const result = await run([]);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain('Exit codes:');
  });

  it('shows one command with --help and with help <command>', async () => {
    const direct = await run(['tasks', 'watch', '--help']);
    const viaHelp = await run(['help', 'tasks', 'watch']);
    expect(direct.code).toBe(0);
    expect(direct.stdout).toMatch(
      /^Usage: delivery-task tasks watch <id> \[--interval SECONDS\] \[--timeout SECONDS\]/,
    );
    expect(viaHelp).toEqual(direct);
    expect(mock.requests).toHaveLength(0);
  });

  it.each([
    [['shipments'], 'delivery-task: unknown command "shipments" (see delivery-task --help)'],
    [
      ['tasks', 'delete', 'x'],
      'delivery-task: tasks: unknown command "delete" (see delivery-task tasks --help)',
    ],
    [['tasks', 'list', '--bogus'], "delivery-task: tasks list: Unknown option '--bogus'."],
    [
      ['tasks', 'list', '--limit', '0'],
      'delivery-task: tasks list: --limit must be an integer from 1 to 1000000, got "0"',
    ],
    [['tasks', 'list', '--limit', '2.5'], 'delivery-task: tasks list: --limit must be an integer'],
    [['tasks', 'list', '--status', 'lost'], 'delivery-task: tasks list: --status: unknown status "lost"'],
    [['tasks', 'get'], 'delivery-task: tasks get: missing <id>'],
    [['tasks', 'get', 'a', 'b'], 'delivery-task: tasks get: unexpected argument "b"'],
    [['tasks', 'create'], 'delivery-task: tasks create: missing --file ORDER.json'],
    [
      ['tasks', 'watch', 'x', '--interval', '0'],
      'delivery-task: tasks watch: --interval must be a number of seconds from 0.05 to 60',
    ],
    [
      ['estimate', '--from', '29.3', '--to', '29.3,48'],
      'delivery-task: estimate: --from must be LAT,LNG in decimal degrees',
    ],
    [
      ['estimate', '--from', '-29.3,48', '--to', '29.3,48'],
      "delivery-task: estimate: Option '--from' argument is ambiguous.",
    ],
    [['wallet', 'top-up', 'five'], 'delivery-task: wallet top-up: amount must be KWD as a decimal number'],
    [
      ['wallet', 'balance', '--json=yes'],
      "delivery-task: wallet balance: Option '--json' does not take an argument",
    ],
  ])('exits 2 with one error line for %j, sending nothing', async (argv, start) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')[0]?.startsWith(start)).toBe(true);
    expect(mock.requests).toHaveLength(0);
  });

  it('exits 2 naming the variable when the environment lacks the API key, and sends nothing', async () => {
    const result = await run(['wallet', 'balance'], { env: { ...env, DELIVERY_API_KEY: undefined } });
    expect(result.code).toBe(2);
    expect(errorLine(result.stderr)).toMatch(
      /^delivery-task: ConfigurationError: Invalid DELIVERY_API_KEY: expected an API key \(set the environment variable DELIVERY_API_KEY\), got nothing$/,
    );
    expect(mock.requests).toHaveLength(0);
  });

  it('exits 2 for a DELIVERY_BASE_URL whose path reaches no route, saying to check DELIVERY_BASE_URL', async () => {
    const result = await run(['wallet', 'balance'], {
      env: { ...env, DELIVERY_BASE_URL: `${server.url}/v1` },
    });
    expect(result.code).toBe(2);
    expect(errorLine(result.stderr)).toMatch(
      /^delivery-task: APIError: 404 Not Found: GET \/(rest\/)?v1\/tasks\/wallet-balance/,
    );
    expect(errorLine(result.stderr)).toMatch(/check DELIVERY_BASE_URL$/);
  });

  it('tells a shell user which environment variable to set, never to pass an option to new DeliveryClient', async () => {
    for (const name of ['DELIVERY_API_KEY', 'DELIVERY_SELLER_ID', 'DELIVERY_BASE_URL']) {
      for (const value of [undefined, '  ']) {
        const result = await run(['wallet', 'balance'], { env: { ...env, [name]: value } });
        expect(result.code, name).toBe(2);
        const line = errorLine(result.stderr);
        expect(line, name).toContain(`set the environment variable ${name}`);
        expect(line, name).not.toMatch(/DeliveryClient|option/);
      }
    }
    const insecure = await run(['wallet', 'balance'], {
      env: { ...env, DELIVERY_BASE_URL: 'http://example.com' },
    });
    expect(insecure.code).toBe(2);
    expect(errorLine(insecure.stderr)).toMatch(
      /^delivery-task: ConfigurationError: Invalid DELIVERY_BASE_URL: expected an https URL .*, got "http:\/\/example.com"$/,
    );
    expect(errorLine(insecure.stderr)).not.toMatch(/DeliveryClient|option/);
    expect(mock.requests).toHaveLength(0);
  });

  it('accepts --json before the command words', async () => {
    const result = await run(['--json', 'wallet', 'balance']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ walletAmount: 100 });
  });
});

describe('tasks list', () => {
  async function createOrders(count: number, prefix = 'ORD-'): Promise<Task[]> {
    const tasks: Task[] = [];
    // Setup, not the subject: new order numbers, sent without a lookup (which would be a list request).
    for (let index = 1; index <= count; index++) {
      tasks.push(
        await client.tasks.create(
          { ...orderParams(`${prefix}${index}`), collectCash: true, totalAmount: `${index}.5` },
          { lookupFirst: false },
        ),
      );
    }
    return tasks;
  }

  it('prints an aligned table with the KWD amount formatted by kwd.format and UTC times', async () => {
    const created = [
      await client.tasks.create({ ...orderParams('A-1'), collectCash: true, totalAmount: '1234.5' }),
      await client.tasks.create({
        ...orderParams('ORDER-LONG-NUMBER-22'),
        collectCash: true,
        totalAmount: '0.25',
      }),
      await client.tasks.create(orderParams('B-3')),
    ];
    const result = await run(['tasks', 'list']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    const header = lines[0] ?? '';
    // No FEE column: the API form of a task carries no fee (the spec shows none).
    expect(header).toMatch(/^ID +ORDER +STATUS +COLLECT +CREATED \(UTC\)$/);
    // Left-aligned columns start where their title starts; right-aligned ones end where it ends.
    const start = (title: string) => header.indexOf(title);
    for (const task of created) {
      const line = lines.find((each) => each.startsWith(task.id ?? '?')) ?? '';
      expect(line.indexOf(task.orderNumber ?? '?')).toBe(start('ORDER'));
      expect(line.indexOf('pending')).toBe(start('STATUS'));
      const amount = task.totalAmount === undefined ? '—' : kwd.format(task.totalAmount);
      expect(line.lastIndexOf(amount) + amount.length).toBe(start('COLLECT') + 'COLLECT'.length);
      expect(line.slice(start('CREATED'))).toBe(
        new Date(task.createdAt ?? '').toISOString().replace(/\.\d{3}Z$/, 'Z'),
      );
    }
    expect(kwd.format('1234.5')).toMatch(/^KWD\s1,234\.500$/);
    expect(result.stdout).toContain(kwd.format('1234.5'));
    expect(result.stdout).toContain(kwd.format('0.25'));
    // Newest first, as the mock lists.
    expect(lines.slice(1).map((line) => line.split(' ')[0])).toEqual(
      created.map((task) => task.id).reverse(),
    );
  });

  it('prints nothing on stdout for an empty list', async () => {
    expect(await run(['tasks', 'list'])).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('prints a JSON array of every task over several pages, each once, with a count line on stderr', async () => {
    const created = await createOrders(25);
    const result = await run(['tasks', 'list', '--json']);
    expect(result.code).toBe(0);
    const listed = JSON.parse(result.stdout) as Task[];
    expect(listed.map((task) => task.id)).toEqual(created.map((task) => task.id).reverse());
    expect(listed[0]).toEqual({ ...mock.task(created[24]?.id ?? ''), sellerId: '[redacted]' });
    expect(result.stdout.split('\n')).toHaveLength(25 + 3); // '[', one task per line, ']', final newline
    expect(result.stderr).toBe('delivery-task: listed 25 tasks (read 25 of 25 reported)\n');
    expect(mock.requestsFor('tasks.list').map((request) => request.query.page)).toEqual(['1', '2', '3']);
    expectNoSecrets(result.stdout + result.stderr);
  });

  it('stops at --limit, asking for no more tasks than it prints', async () => {
    await createOrders(12);
    const small = await run(['tasks', 'list', '--limit', '4', '--json']);
    expect((JSON.parse(small.stdout) as Task[]).map((task) => task.orderNumber)).toEqual([
      'ORD-12',
      'ORD-11',
      'ORD-10',
      'ORD-9',
    ]);
    expect(mock.requestsFor('tasks.list').map((request) => request.query)).toEqual([
      { limit: '4', page: '1' },
    ]);
    const table = await run(['tasks', 'list', '--limit', '11']);
    expect(table.stdout.trimEnd().split('\n')).toHaveLength(12);
    expect(table.stderr).toBe('delivery-task: listed 11 tasks (read 11 of 12 reported)\n');
  });

  it('filters by status over every page and counts --limit among the matches', async () => {
    const created = await createOrders(14);
    const delivered = [created[1], created[7], created[12]].map((task) => task?.id ?? '');
    for (const id of delivered) await mock.advance(id, 'delivered');
    await mock.advance(created[3]?.id ?? '', 'cancelled');
    const result = await run(['tasks', 'list', '--status', 'delivered,cancelled', '--json']);
    const ids = (JSON.parse(result.stdout) as Task[]).map((task) => task.id);
    expect(ids.sort()).toEqual([...delivered, created[3]?.id].sort());
    const limited = await run(['tasks', 'list', '--status', 'delivered', '--limit', '2', '--json']);
    expect((JSON.parse(limited.stdout) as Task[]).map((task) => task.status)).toEqual([
      'delivered',
      'delivered',
    ]);
  });

  it('searches literally', async () => {
    await createOrders(3, 'A.');
    await createOrders(2, 'AB');
    const result = await run(['tasks', 'list', '--search', 'A.', '--json']);
    expect((JSON.parse(result.stdout) as Task[]).map((task) => task.orderNumber).sort()).toEqual([
      'A.1',
      'A.2',
      'A.3',
    ]);
    expect(mock.requestsFor('tasks.list')[0]?.query).toMatchObject({ search: 'A.', ignoreRegex: 'true' });
  });

  it('draws live progress when stderr is a terminal, and clears it', async () => {
    await createOrders(25);
    const result = await run(['tasks', 'list', '--json'], { env, stderrIsTTY: true });
    expect(result.stderr).toBe(
      '\r\u001b[Kreading tasks… 10/25\r\u001b[Kreading tasks… 20/25\r\u001b[K' +
        'delivery-task: listed 25 tasks (read 25 of 25 reported)\n',
    );
  });

  it('replaces terminal control characters in service text', async () => {
    await client.tasks.create(orderParams('EVIL-\u001b[2J-1'));
    const result = await run(['tasks', 'list']);
    expect(result.stdout).not.toContain('\u001b');
    expect(result.stdout).toContain('EVIL-\ufffd[2J-1');
  });
});

describe('tasks get', () => {
  it('prints the task as labelled lines, money with kwd.format', async () => {
    const task = await client.tasks.create({
      ...orderParams('ORD-7'),
      collectCash: true,
      totalAmount: '12.5',
    });
    const result = await run(['tasks', 'get', task.id ?? '']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        `id          ${task.id}`,
        'order       ORD-7',
        'status      pending',
        `collect     ${kwd.format('12.500')} (cash on delivery)`,
        'customer    Customer ORD-7  +96550001234',
        'deliver to  Block 10, Street 5, Salmiya',
      ]),
    );
    expect(lines.at(-1)).toMatch(/^history {5}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}pending$/);
    // The mock's API form gives no fee: no fee line rather than a dash for a value nobody sent.
    expect(lines.filter((line) => line.startsWith('fee'))).toEqual([]);
    expectNoSecrets(result.stdout);
  });

  it('prints the task as the service sent it with --json, the seller id redacted', async () => {
    const task = await client.tasks.create(orderParams('ORD-8'));
    const result = await run(['tasks', 'get', task.id ?? '', '--json']);
    expect(JSON.parse(result.stdout)).toEqual({ ...mock.task(task.id ?? ''), sellerId: '[redacted]' });
  });

  it('exits 4 with one line naming the request for an unknown id', async () => {
    const result = await run(['tasks', 'get', 'no-such-task']);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(errorLine(result.stderr)).toMatch(
      /^delivery-task: NotFoundError: 404 Not Found: GET \/rest\/tasks\/no-such-task — Task not found \(request id req_\d{6}\)$/,
    );
  });

  it('puts the request id in the error line, and never the key or seller id, even when the service echoes them', async () => {
    mock.inject({
      operation: 'tasks.retrieve',
      kind: 'status',
      status: 404,
      body: { message: `No task for seller ${SELLER_ID} with key ${API_KEY}` },
      headers: { 'x-request-id': 'req-cli-404' },
    });
    const result = await run(['tasks', 'get', 'abc']);
    expect(result.code).toBe(4);
    const line = errorLine(result.stderr);
    expect(line).toContain('(request id req-cli-404)');
    expect(line).toContain('No task for seller [redacted] with key [redacted]');
    expectNoSecrets(line);
  });

  it('exits 3 when the key is refused, without showing the key it sent', async () => {
    const wrongKey = 'wrong-key-Pz0k7';
    const result = await run(['tasks', 'get', 'abc'], { env: { ...env, DELIVERY_API_KEY: wrongKey } });
    expect(result.code).toBe(3);
    expect(errorLine(result.stderr)).toMatch(
      /^delivery-task: AuthenticationError: 401 Unauthorized: GET \/rest\/tasks\/abc/,
    );
    expect(result.stderr).not.toContain(wrongKey);
    expect(result.stderr).not.toContain(SELLER_ID);
  });

  it('exits 6 for a service failing past the retries, with the request id', async () => {
    mock.inject({
      operation: 'tasks.retrieve',
      kind: 'status',
      status: 503,
      times: 3,
      headers: { 'x-request-id': 'req-503', 'retry-after-ms': '1' },
    });
    const result = await run(['tasks', 'get', 'abc']);
    expect(result.code).toBe(6);
    expect(errorLine(result.stderr)).toMatch(
      /^delivery-task: InternalServerError: 503 Service Unavailable: .*\(request id req-503\)$/,
    );
    expect(mock.requestsFor('tasks.retrieve')).toHaveLength(3);
  });

  it('exits 6 when the service cannot be reached', async () => {
    const closed = await startMockHttpServer(mock);
    await closed.close();
    const result = await run(['tasks', 'get', 'abc'], { env: { ...env, DELIVERY_BASE_URL: closed.url } });
    expect(result.code).toBe(6);
    expect(errorLine(result.stderr)).toMatch(/^delivery-task: APIConnectionError: /);
  });
});

describe('tasks create', () => {
  it('creates the task of the file and prints it; --json says it was created', async () => {
    const file = await orderFile('create.json', {
      ...orderParams('ORD-100'),
      collectCash: true,
      totalAmount: '3.250',
    });
    const result = await run(['tasks', 'create', '--file', file, '--json']);
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout) as { created: boolean; task: Task };
    expect(printed.created).toBe(true);
    expect(mock.tasks).toHaveLength(1);
    expect(printed.task.id).toBe(mock.tasks[0]?.id);
    expect(printed.task).toMatchObject({ orderNumber: 'ORD-100', totalAmount: '3.250', status: 'pending' });
    expect(result.stderr).toBe(`delivery-task: created task ${printed.task.id} for order ORD-100\n`);
    expect(mock.wallet.feesCharged).toBe(1);
  });

  it('run twice with the same file, creates one task: the second run finds it and sends no POST', async () => {
    const file = await orderFile('twice.json', orderParams('ORD-T2'));
    const first = await run(['tasks', 'create', '--file', file, '--json']);
    const second = await run(['tasks', 'create', '--file', file, '--json']);
    expect([first.code, second.code]).toEqual([0, 0]);
    const [one, two] = [first, second].map(
      (each) => JSON.parse(each.stdout) as { created: boolean; task: Task },
    );
    expect(one?.created).toBe(true);
    expect(two?.created).toBe(false);
    expect(two?.task.id).toBe(one?.task.id);
    expect(second.stderr).toBe(
      `delivery-task: order ORD-T2 already has task ${one?.task.id}: nothing created (--repeat-delivery creates another delivery)\n`,
    );
    expect(mock.tasks).toHaveLength(1);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(mock.wallet.feesCharged).toBe(1);
    // The lookup asks for the exact order number only.
    expect(mock.requestsFor('tasks.list').at(-1)?.query).toMatchObject({
      search: '^ORD-T2$',
      ignoreRegex: 'false',
    });
  });

  it('run twice at once in one process, sends one POST: the SDK shares the create in flight', async () => {
    const file = await orderFile('together.json', orderParams('ORD-SAME'));
    mock.inject({ operation: 'tasks.create', kind: 'delay', ms: 300 });
    const [first, second] = await Promise.all([
      run(['tasks', 'create', '--file', file, '--json']),
      run(['tasks', 'create', '--file', file, '--json']),
    ]);
    expect([first?.code, second?.code]).toEqual([0, 0]);
    const ids = [first, second].map((each) => (JSON.parse(each?.stdout ?? '') as { task: Task }).task.id);
    expect(ids[0]).toBe(ids[1]);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(mock.tasks).toHaveLength(1);
  });

  it('does not find ORD-1 in ORD-10: only the exact order number counts', async () => {
    await client.tasks.create(orderParams('ORD-10'));
    await client.tasks.create(orderParams('XORD-1'));
    const file = await orderFile('prefix.json', orderParams('ORD-1'));
    const result = await run(['tasks', 'create', '--file', file, '--json']);
    expect((JSON.parse(result.stdout) as { created: boolean }).created).toBe(true);
    expect(mock.tasks.map((task) => task.orderNumber).sort()).toEqual(['ORD-1', 'ORD-10', 'XORD-1']);
  });

  it('falls back to a literal search when the service refuses the pattern', async () => {
    // Setup: sent without a lookup, so that the searches below are the command's own.
    const existing = await client.tasks.create(orderParams('ORD-FB'), { lookupFirst: false });
    mock.inject({
      operation: 'tasks.list',
      kind: 'status',
      status: 400,
      body: { message: 'Invalid regular expression' },
    });
    const file = await orderFile('fallback.json', orderParams('ORD-FB'));
    const result = await run(['tasks', 'create', '--file', file, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ created: false, task: { id: existing.id } });
    expect(mock.requestsFor('tasks.list').map((request) => request.query.ignoreRegex)).toEqual([
      'false',
      'true',
    ]);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1); // the setup's own
  });

  it('creates another delivery with --repeat-delivery', async () => {
    const file = await orderFile('repeat.json', orderParams('ORD-R'));
    await run(['tasks', 'create', '--file', file]);
    const again = await run(['tasks', 'create', '--file', file, '--repeat-delivery', '--json']);
    expect(again.code).toBe(0);
    expect((JSON.parse(again.stdout) as { created: boolean }).created).toBe(true);
    expect(mock.tasks.map((task) => task.orderNumber)).toEqual(['ORD-R', 'ORD-R']);
    expect(mock.requestsFor('tasks.create')).toHaveLength(2);
  });

  it('exits 7 when the order number already has several tasks', async () => {
    const a = await client.tasks.create(orderParams('ORD-D'));
    const b = await client.tasks.create(orderParams('ORD-D'), { repeatDelivery: true });
    const file = await orderFile('dup.json', orderParams('ORD-D'));
    const result = await run(['tasks', 'create', '--file', file]);
    expect(result.code).toBe(7);
    const line = errorLine(result.stderr);
    expect(line).toMatch(/^delivery-task: DuplicateTaskError: /);
    expect(line).toContain(a.id ?? '?');
    expect(line).toContain(b.id ?? '?');
    expect(mock.tasks).toHaveLength(2);
  });

  it('returns the task when the connection drops after the service committed it (the SDK reconciles)', async () => {
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop' });
    const file = await orderFile('dropped.json', orderParams('ORD-DROP'));
    const result = await run(['tasks', 'create', '--file', file, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ created: true, task: { id: mock.tasks[0]?.id } });
    expect(mock.tasks).toHaveLength(1);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    // The CLI's lookup, then the SDK's reconciliation, which found the task instead of sending again.
    expect(mock.requestsFor('tasks.list').map((request) => request.query.search)).toEqual([
      '^ORD-DROP$',
      '^ORD-DROP$',
    ]);
  });

  it('exits 5 when the wallet is below the fee, creating nothing', async () => {
    const poor = createMockDeliveryService({
      apiKey: API_KEY,
      sellerId: SELLER_ID,
      account: { type: 'wallet', balance: 0.1 },
    });
    const poorServer = await startMockHttpServer(poor);
    try {
      const file = await orderFile('poor.json', orderParams('ORD-P'));
      const result = await run(['tasks', 'create', '--file', file], {
        env: { ...env, DELIVERY_BASE_URL: poorServer.url },
      });
      expect(result.code).toBe(5);
      expect(errorLine(result.stderr)).toMatch(
        /^delivery-task: InsufficientBalanceError: 402 Payment Required: POST \/tasks/,
      );
      expect(poor.tasks).toHaveLength(0);
    } finally {
      await poorServer.close();
    }
  });

  it.each([
    [
      'a latitude out of range',
      { ...orderParams('ORD-V'), deliveryLocation: { latitude: 91, longitude: 48 } },
      'deliveryLocation.latitude',
    ],
    ['a misspelt field', { ...orderParams('ORD-V'), customerNmae: 'x' }, 'customerNmae'],
    ['a totalAmount with 4 decimals', { ...orderParams('ORD-V'), totalAmount: '1.2345' }, 'totalAmount'],
  ])('exits 2 for %s, naming the field, sending nothing', async (_name, params, field) => {
    const file = await orderFile('invalid.json', params);
    const result = await run(['tasks', 'create', '--file', file]);
    expect(result.code).toBe(2);
    const line = errorLine(result.stderr);
    expect(line).toMatch(
      new RegExp(
        `^delivery-task: RequestValidationError: ${file}: Invalid tasks.create parameters \\(nothing was sent\\): .*${field}`,
      ),
    );
    expect(mock.requests).toHaveLength(0);
  });

  it.each([
    ['is not JSON', '{"orderNumber": ', 'not valid JSON'],
    ['is an array', '[]', 'expected a JSON object with the create parameters'],
    ['has no orderNumber', JSON.stringify({ customerName: 'x' }), 'orderNumber is required'],
  ])('exits 2 when the file %s', async (_name, content, message) => {
    const file = await orderFile('bad.json', content);
    const result = await run(['tasks', 'create', '--file', file]);
    expect(result.code).toBe(2);
    expect(errorLine(result.stderr)).toContain(`delivery-task: tasks create: ${file}: ${message}`);
    expect(mock.requests).toHaveLength(0);
  });

  it.each([
    ['a bare word', '{\n  "orderNumber": "ORD-J",\n  "customerName": Fatma,\n}', 3, 19],
    ['a trailing comma', '{\n  "orderNumber": "ORD-J",\n}', 3, 1],
    ['a cut-off file', '{\n  "orderNumber": "ORD-J"', 2, 25],
    ['a control character in a string', '{"orderNumber": "ORD\u0001J"}', 1, 21],
    ['text after the object', '{"orderNumber": "ORD-J"} x', 1, 26],
    ['a bad escape', '{\n"orderNumber": "ORD\\qJ"}', 2, 20],
  ])('names the line and column of %s', async (_name, content, line, column) => {
    const file = await orderFile('syntax.json', content);
    const result = await run(['tasks', 'create', '--file', file]);
    expect(result.code).toBe(2);
    expect(errorLine(result.stderr)).toContain(`${file}: not valid JSON at line ${line}, column ${column}`);
    expect(mock.requests).toHaveLength(0);
  });

  it('names where a file nests deeper than 64 levels', async () => {
    const file = await orderFile(
      'deep.json',
      `{\n"orderNumber": "ORD-D",\n"x": ${'['.repeat(100)}${']'.repeat(100)}}`,
    );
    const result = await run(['tasks', 'create', '--file', file]);
    expect(result.code).toBe(2);
    expect(errorLine(result.stderr)).toContain(`${file}: nests deeper than 64 levels at line 3, column 69`);
    expect(mock.requests).toHaveLength(0);
  });

  it('accepts a file that starts with a UTF-8 byte-order mark', async () => {
    const file = await orderFile('bom.json', `\ufeff${JSON.stringify(orderParams('ORD-BOM'))}`);
    const result = await run(['tasks', 'create', '--file', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(mock.tasks.map((task) => task.orderNumber)).toEqual(['ORD-BOM']);
  });

  it('refuses a file that grows past the bound while read (a device that never ends)', async () => {
    const result = await run(['tasks', 'create', '--file', '/dev/zero']);
    expect(result.code).toBe(2);
    expect(errorLine(result.stderr)).toContain(`larger than the ${64 * 1024} bytes`);
  });

  it('exits 2 when the file cannot be read', async () => {
    const result = await run(['tasks', 'create', '--file', join(folder, 'missing.json')]);
    expect(result.code).toBe(2);
    expect(errorLine(result.stderr)).toContain('missing.json: cannot read the order file (ENOENT)');
  });
});

describe('tasks watch', () => {
  /** Runs watch and moves the task one step each time the CLI has printed its current status. */
  async function watchWhileAdvancing(
    argv: readonly string[],
    id: string,
    printed: (stdout: string) => string[],
  ) {
    let advanced = 0;
    return runInProcess(argv, {
      env,
      onStdout: (_text, stdout) => {
        const status = mock.task(id)?.status;
        const seen = printed(stdout);
        if (
          status !== undefined &&
          seen.at(-1) === status &&
          seen.length > advanced &&
          status !== 'delivered'
        ) {
          advanced = seen.length;
          void mock.advance(id);
        }
      },
    });
  }

  it('prints each status as the mock moves the task, and ends at delivered', async () => {
    const task = await client.tasks.create(orderParams('ORD-W'));
    const id = task.id ?? '';
    const statusesOf = (stdout: string) =>
      stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.split('  ')[1] ?? '');
    const result = await watchWhileAdvancing(['tasks', 'watch', id, '--interval', '0.05'], id, statusesOf);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(statusesOf(result.stdout)).toEqual([
      'pending',
      'requested',
      'accepted',
      'pickedup',
      'enroute',
      'delivered',
    ]);
    const history = mock.task(id)?.statusHistory ?? [];
    expect(
      result.stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.split('  ')[0]),
    ).toEqual(
      history.map((entry) => new Date(entry.timestamp ?? '').toISOString().replace(/\.\d{3}Z$/, 'Z')),
    );
  });

  it('prints a JSON array of the changes with --json, closed at the final status', async () => {
    const task = await client.tasks.create(orderParams('ORD-WJ'));
    const id = task.id ?? '';
    const statusesOf = (stdout: string) =>
      [...stdout.matchAll(/"status":"(\w+)"/g)].map((match) => match[1] ?? '');
    const result = await watchWhileAdvancing(
      ['tasks', 'watch', id, '--interval', '0.05', '--json'],
      id,
      statusesOf,
    );
    expect(result.code).toBe(0);
    const changes = JSON.parse(result.stdout) as Array<{ taskId: string; status: string; at: string }>;
    expect(changes.map((change) => change.status)).toEqual([
      'pending',
      'requested',
      'accepted',
      'pickedup',
      'enroute',
      'delivered',
    ]);
    expect(changes.every((change) => change.taskId === id)).toBe(true);
  });

  it('prints statuses passed between two reads from the history', async () => {
    const task = await client.tasks.create(orderParams('ORD-WH'));
    const id = task.id ?? '';
    await mock.advance(id, 'enroute');
    const pending = runInProcess(['tasks', 'watch', id, '--interval', '0.05'], { env });
    await new Promise((resolve) => setTimeout(resolve, 150));
    await mock.advance(id, 'failed');
    const result = await pending;
    expect(result.code).toBe(0);
    expect(
      result.stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.split('  ')[1]),
    ).toEqual(['pending', 'requested', 'accepted', 'pickedup', 'enroute', 'failed']);
  });

  it('exits 8 when no final status comes before --timeout', async () => {
    const task = await client.tasks.create(orderParams('ORD-WT'));
    const started = Date.now();
    const result = await run(['tasks', 'watch', task.id ?? '', '--interval', '0.05', '--timeout', '0.4']);
    expect(result.code).toBe(8);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(errorLine(result.stderr)).toBe(
      `delivery-task: StatusWaitTimeoutError: Task ${task.id} did not reach delivered or cancelled or rejected or failed within 400 ms (last status: pending)`,
    );
  });

  it('stops with exit 130 when the operator interrupts it', async () => {
    const task = await client.tasks.create(orderParams('ORD-WC'));
    const stop = new AbortController();
    const result = await runInProcess(['tasks', 'watch', task.id ?? '', '--interval', '0.05'], {
      env,
      signal: stop.signal,
      onStdout: () => setTimeout(() => stop.abort(), 100),
    });
    expect(result.code).toBe(130);
    expect(result.stdout).toMatch(/ {2}pending\n$/);
    expect(result.stderr).toBe('delivery-task: tasks watch: interrupted\n');
  });

  it('keeps watching through a temporary failure of the service', async () => {
    const task = await client.tasks.create(orderParams('ORD-WF'));
    const id = task.id ?? '';
    let failed = false;
    const result = await runInProcess(['tasks', 'watch', id, '--interval', '0.05'], {
      env,
      onStdout: () => {
        if (failed) return;
        failed = true;
        // The next read fails past its retries, then the task is delivered.
        mock.inject({
          operation: 'tasks.retrieve',
          kind: 'status',
          status: 503,
          times: 3,
          headers: { 'retry-after-ms': '1' },
        });
        setTimeout(() => void mock.advance(id, 'delivered'), 100);
      },
    });
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toMatch(/ {2}delivered$/);
    expect(result.stderr).toMatch(
      /^delivery-task: reading task \w+ failed, trying again: 503 Service Unavailable/,
    );
  });

  it('exits 4 for an unknown task', async () => {
    const result = await run(['tasks', 'watch', 'nope', '--interval', '0.05']);
    expect(result.code).toBe(4);
    expect(errorLine(result.stderr)).toMatch(/^delivery-task: NotFoundError: 404 Not Found/);
  });
});

describe('estimate, branches, wallet', () => {
  const salmiya = '29.3339,48.0761';
  const cityCentre = '29.3759,47.9774';

  it('prints the estimate with the price through kwd.format', async () => {
    const expected = await client.tasks.estimate({
      from: { latitude: 29.3759, longitude: 47.9774 },
      to: { latitude: 29.3339, longitude: 48.0761 },
    });
    const result = await run(['estimate', '--from', cityCentre, '--to', salmiya]);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')).toEqual(
      expect.arrayContaining([
        `price          ${kwd.format(expected.price ?? 0)}`,
        `distance       ${expected.travelDetail?.totalDistance} (totalDistance; unit not stated by the service)`,
        `duration       ${expected.travelDetail?.duration} (duration; unit not stated by the service)`,
      ]),
    );
    const json = await run(['estimate', '--from', cityCentre, '--to', salmiya, '--json']);
    expect(JSON.parse(json.stdout)).toEqual(expected);
  });

  it('exits 2 naming the field for a latitude out of range, sending nothing', async () => {
    const result = await run(['estimate', '--from', '95,48', '--to', salmiya]);
    expect(result.code).toBe(2);
    expect(errorLine(result.stderr)).toMatch(/^delivery-task: RequestValidationError: .*from\.latitude/);
    expect(mock.requests).toHaveLength(0);
  });

  it('lists the branches as a table and as JSON', async () => {
    const expected = await client.branches.list();
    const result = await run(['branches']);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME +ID +ADDRESS$/);
    expect(lines).toHaveLength(expected.length + 1);
    for (const [index, branch] of expected.entries())
      expect(lines[index + 1]?.startsWith(branch.name)).toBe(true);
    const json = await run(['branches', '--json']);
    expect(JSON.parse(json.stdout)).toEqual(expected);
  });

  it('prints the balance in KWD, lower after a create by the fee', async () => {
    expect(await run(['wallet', 'balance'])).toEqual({ code: 0, stdout: `${kwd.format(100)}\n`, stderr: '' });
    expect(kwd.format(100)).toMatch(/^KWD\s100\.000$/);
    await client.tasks.create(orderParams('ORD-FEE'));
    const after = await run(['wallet', 'balance', '--json']);
    const { walletAmount } = JSON.parse(after.stdout) as { walletAmount: number };
    expect(walletAmount).toBe(mock.wallet.balance);
    expect(kwd.subtract(100, walletAmount)).toBe(kwd.fromFils(mock.wallet.feesChargedFils));
    expect((await run(['wallet', 'balance'])).stdout).toBe(`${kwd.format(walletAmount)}\n`);
  });

  it('prints a payment link that credits the wallet when paid', async () => {
    const result = await run(['wallet', 'top-up', '7.250']);
    expect(result.code).toBe(0);
    const url = result.stdout.trim();
    expect(result.stdout).toBe(`${url}\n`);
    expect(result.stderr).toMatch(
      /^delivery-task: top-up of KWD\s7\.250 requested; the link expires \d{4}-\d\d-\d\dT[\d:]+Z\n$/,
    );
    expect(mock.completeTopUp(url)).toBe(107.25);
    const json = await run(['wallet', 'top-up', '5', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ paymentUrl: expect.any(String), amount: 5 });
  });

  it.each([
    ['4.999', 'at least 5'],
    ['5.0001', 'amount'],
  ])('exits 2 for a top-up of %s, sending nothing', async (amount, message) => {
    const result = await run(['wallet', 'top-up', amount]);
    expect(result.code).toBe(2);
    expect(errorLine(result.stderr)).toMatch(
      /^delivery-task: RequestValidationError: Invalid wallet.topUp parameters/,
    );
    expect(result.stderr).toContain(message);
    expect(mock.requests).toHaveLength(0);
  });
});
