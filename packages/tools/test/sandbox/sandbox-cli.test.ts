/**
 * The `delivery-task sandbox` command as a process: its options, exit codes and signals, the courier
 * (`--auto-advance`), seed files, and account options. Plain `fetch`, no SDK.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MOCK_DEFAULTS } from 'delivery-task-sdk/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CAN_SEE_PROCESSES,
  commandLineOf,
  descendantsOf,
  survivorsAfter,
} from '../../../../test/support/processes.js';
import { CLI_PROCESS_TEST_TIMEOUT_MS, type CliRun, runInProcess } from '../support/cli.js';
import {
  killAllSandboxes,
  runCli,
  type SandboxProcess,
  startCli,
  startSandboxProcess,
  startWebhookReceiver,
} from '../support/sandbox-process.js';

const directory = mkdtempSync(join(tmpdir(), 'sandbox-cli-'));
afterAll(() => {
  killAllSandboxes();
  rmSync(directory, { recursive: true, force: true });
});

/** Writes a seed file and returns its path. */
function seedFile(name: string, content: unknown): string {
  const file = join(directory, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

interface TaskJson {
  id: string;
  status: string;
  statusHistory: Array<{ status: string }>;
  pickupLocation?: { latitude: number; longitude: number };
  [field: string]: unknown;
}

async function getJson<Body>(sandbox: SandboxProcess, path: string, init: RequestInit = {}): Promise<Body> {
  const response = await sandbox.fetch(path, {
    ...init,
    headers: sandbox.headers({ 'content-type': 'application/json' }),
  });
  return (await response.json()) as Body;
}

/** Resolves when the port refuses connections. */
function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

const portOf = (sandbox: SandboxProcess): number => Number(new URL(sandbox.baseUrl).port);

/**
 * Runs `argv`, which the CLI must refuse, through its `runCli` in this process (no environment); one that
 * starts a sandbox instead is stopped after 10 s and fails the comparison of its exit code.
 */
async function runRefused(argv: readonly string[]): Promise<CliRun> {
  const stop = AbortSignal.timeout(10_000);
  return runInProcess(argv, { env: {}, signal: stop });
}

describe('delivery-task sandbox options', { timeout: CLI_PROCESS_TEST_TIMEOUT_MS }, () => {
  it('exits 2 with one readable line on stderr for each bad option', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--port', 'abc'], /--port must be an integer from 0 to 65535, got "abc"/],
      [['--port', '70000'], /--port must be an integer from 0 to 65535/],
      [['--port'], /--port needs a value/],
      [['--verbose'], /unknown option --verbose/],
      [['extra'], /unexpected argument "extra"/],
      [['--account', 'credit'], /--account must be wallet or invoice, got "credit"/],
      [['--balance', '12.3456'], /--balance must be a KWD amount ≥ 0 with at most 3 decimals/],
      [['--balance=-1'], /--balance must be a KWD amount ≥ 0/],
      [['--balance', '-1'], /--balance needs a value \(write --balance=<value>/],
      [['--account', 'invoice', '--balance', '5'], /--balance applies to a wallet account/],
      [['--webhook-url', 'ftp://example.com/hook'], /--webhook-url must be an absolute http\(s\) URL/],
      [['--webhook-url', 'not a url'], /--webhook-url must be an absolute http\(s\) URL/],
      [['--auto-advance', '5'], /--auto-advance must be an integer from 10 to 86400000, got "5"/],
      [['--auto-advance', '1.5'], /--auto-advance must be an integer/],
      [
        ['--seed', join(directory, 'missing.json')],
        /--seed .*missing\.json: cannot read the file \(ENOENT\)/,
      ],
      [['--json=yes'], /--json/],
      [
        ['--allow-host', 'sandbox.test:4010'],
        /--allow-host: "sandbox\.test:4010" is not a host name without a port/,
      ],
    ];
    // The first as a process (its exit code and stderr), the rest through the same `runCli` in this
    // process: a start costs about 0.7 CPU-s, and what is checked is the options' reading.
    const [first, ...rest] = cases.map(([args]) => ['sandbox', ...args]);
    const results = [await runCli(first ?? []), ...(await Promise.all(rest.map((argv) => runRefused(argv))))];
    results.forEach((result, index) => {
      const [args, message] = cases[index] ?? [[], /./];
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: '' });
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines, args.join(' ')).toHaveLength(1);
      expect(lines[0], args.join(' ')).toMatch(/^delivery-task sandbox: /);
      expect(lines[0], args.join(' ')).toMatch(message);
    });
  });

  it('prints its options with --help and exits 0', async () => {
    const result = await runCli(['sandbox', '--help']);
    expect(result.code).toBe(0);
    for (const option of [
      '--port',
      '--host',
      '--account',
      '--balance',
      '--webhook-url',
      '--auto-advance',
      '--seed',
      '--json',
      '--allow-host',
    ]) {
      expect(result.stdout).toContain(option);
    }
  });

  it('answers a foreign Host 403 unless --allow-host names it', async () => {
    const sandbox = await startSandboxProcess(['--allow-host', 'sandbox.test']);
    try {
      const { port } = new URL(sandbox.baseUrl);
      const statusFor = (host: string) =>
        new Promise<number>((resolve, reject) => {
          httpRequest(
            {
              host: '127.0.0.1',
              port,
              path: '/tasks/wallet-balance',
              headers: { ...sandbox.headers(), host },
            },
            (response) => {
              response.resume();
              resolve(response.statusCode ?? 0);
            },
          )
            .on('error', reject)
            .end();
        });
      expect(await statusFor(`sandbox.test:${port}`)).toBe(200);
      expect(await statusFor(`rebind.test:${port}`)).toBe(403);
    } finally {
      await sandbox.stop();
    }
  });

  it('prints one text line with the base URL, the API key and the seller id without --json', async () => {
    const command = await startCli(['sandbox', '--port', '0']);
    try {
      expect(command.line).toMatch(
        new RegExp(
          `^delivery-task sandbox: http://127\\.0\\.0\\.1:\\d+ · API key ${MOCK_DEFAULTS.apiKey} · seller id ${MOCK_DEFAULTS.sellerId} · control http://127\\.0\\.0\\.1:\\d+/_sandbox/ · `,
        ),
      );
    } finally {
      expect(await command.stop()).toEqual({ code: 0, signal: null });
    }
  });

  it('exits 1 naming the problem when the port is in use', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const result = await runCli(['sandbox', '--port', String(port)]);
      expect(result.code).toBe(1);
      expect(result.stderr.trimEnd().split('\n')).toEqual([
        `delivery-task sandbox: cannot listen on 127.0.0.1:${port} (EADDRINUSE): the port is in use (--port 0 picks a free one)`,
      ]);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('serves an invoice account (balance 0, top-up refused) and a wallet with --balance', async () => {
    const [invoice, wallet] = await Promise.all([
      startSandboxProcess(['--account', 'invoice']),
      startSandboxProcess(['--balance', '7.25']),
    ]);
    try {
      expect(await getJson(invoice, '/tasks/wallet-balance')).toEqual({ walletAmount: 0 });
      const topUp = await invoice.fetch('/tasks/wallet-topup', {
        method: 'POST',
        headers: invoice.headers({ 'content-type': 'application/json' }),
        body: JSON.stringify({ amount: 10 }),
      });
      expect(topUp.status).toBe(400);
      expect((await topUp.json()).code).toBe('INVOICE_ACCOUNT');
      expect(await getJson(wallet, '/tasks/wallet-balance')).toEqual({ walletAmount: 7.25 });
      const reset = await wallet.fetch('/_sandbox/reset', { method: 'POST' });
      expect(await reset.json()).toEqual({ tasks: 0, walletAmount: 7.25 });
    } finally {
      await Promise.all([invoice.stop(), wallet.stop()]);
    }
  });
});

describe('delivery-task sandbox stopping', { timeout: CLI_PROCESS_TEST_TIMEOUT_MS }, () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`stops on ${signal}: ends an idle keep-alive connection, exits 0 and closes the port`, async () => {
      const sandbox = await startSandboxProcess();
      const port = portOf(sandbox);
      // An idle keep-alive connection that the server must end, not wait for.
      const socket = connect(port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      const socketClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.on('error', () => {});
      socket.write(`GET /tasks/branches HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: keep-alive\r\n\r\n`);
      await new Promise<void>((resolve) => socket.once('data', () => resolve()));

      const started = performance.now();
      const exit = await sandbox.stop(signal);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(performance.now() - started).toBeLessThan(5000);
      await socketClosed;
      expect(await connectionRefused(port)).toBe(true);
    });
  }

  it('stops on SIGTERM while a delay fault holds a request open: the request fails, the process exits 0', async () => {
    const sandbox = await startSandboxProcess();
    const injected = await sandbox.fetch('/_sandbox/faults', {
      method: 'POST',
      body: JSON.stringify({ kind: 'delay', ms: 'Infinity', operation: 'tasks.list' }),
    });
    expect(injected.status).toBe(201);
    const held = sandbox.fetch('/tasks', { headers: sandbox.headers() });
    const outcome = held.then(
      () => 'answered',
      () => 'failed',
    );
    // The request is in the sandbox's log (status 'stalled') before the signal is sent.
    for (let attempt = 0; attempt < 100; attempt++) {
      const log = (await (await sandbox.fetch('/_sandbox/requests')).json()) as { requests: unknown[] };
      if (log.requests.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await sandbox.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(await outcome).toBe('failed');
  });

  it.skipIf(!CAN_SEE_PROCESSES)(
    'leaves no process behind when killed with SIGKILL (killAllSandboxes)',
    async () => {
      const sandbox = await startSandboxProcess();
      const started = [sandbox.pid, ...descendantsOf(sandbox.pid)];
      killAllSandboxes();
      await sandbox.exited;
      const survivors = await survivorsAfter(started);
      expect(survivors.map((pid) => `${pid} ${commandLineOf(pid)}`)).toEqual([]);
      expect(await connectionRefused(portOf(sandbox))).toBe(true);
    },
  );
});

describe('delivery-task sandbox --auto-advance', { timeout: CLI_PROCESS_TEST_TIMEOUT_MS }, () => {
  it('moves a new task along the delivery path to delivered on its own, with a webhook for each change', async () => {
    const receiver = await startWebhookReceiver();
    const sandbox = await startSandboxProcess(['--auto-advance', '40', '--webhook-url', receiver.url]);
    try {
      const created = await getJson<{ data: { createTask: TaskJson } }>(sandbox, '/tasks', {
        method: 'POST',
        body: JSON.stringify({
          orderNumber: 'ORD-AUTO',
          deliveryLocation: { latitude: 29.3, longitude: 48 },
        }),
      });
      const cancelled = await getJson<{ data: { createTask: TaskJson } }>(sandbox, '/tasks', {
        method: 'POST',
        body: JSON.stringify({ orderNumber: 'ORD-CANCELLED' }),
      });
      const id = created.data.createTask.id;
      const stopped = await sandbox.fetch(`/_sandbox/tasks/${cancelled.data.createTask.id}/advance`, {
        method: 'POST',
        body: JSON.stringify({ status: 'cancelled' }),
      });
      expect(stopped.status).toBe(200);

      let task = await getJson<TaskJson>(sandbox, `/tasks/${id}`);
      const deadline = Date.now() + 15_000;
      while (task.status !== 'delivered' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        task = await getJson<TaskJson>(sandbox, `/tasks/${id}`);
      }
      expect(task.statusHistory.map((entry) => entry.status)).toEqual([
        'pending',
        'requested',
        'accepted',
        'pickedup',
        'enroute',
        'delivered',
      ]);
      await receiver.waitFor(8);
      // Webhooks are sent as the task moves and may arrive in any order with the other task's: wait for the last.
      const statusesOf = (taskId: string) =>
        receiver.received
          .filter((webhook) => webhook.body._id === taskId)
          .map((webhook) => webhook.body.status);
      const lastBy = Date.now() + 10_000;
      while (!statusesOf(id).includes('delivered') && Date.now() < lastBy) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(statusesOf(id)).toEqual([
        'requested',
        'accepted',
        'inprogress',
        'pickup_location_reached',
        'pickedup',
        'enroute',
        'delivered',
      ]);
      // The other task was cancelled; auto-advance may have moved it a step first (the race between its
      // interval and the cancel call), never after: its webhooks end with `cancelled`.
      const cancelledId = cancelled.data.createTask.id;
      const cancelledKinds = statusesOf(cancelledId);
      expect(cancelledKinds.at(-1)).toBe('cancelled');
      expect(['requested', 'accepted', 'cancelled'].slice(0, cancelledKinds.length - 1)).toEqual(
        cancelledKinds.slice(0, -1),
      );
      // A final status is left alone: a few more intervals change nothing and send nothing.
      const sent = receiver.received.length;
      expect(sent).toBe(7 + cancelledKinds.length);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await getJson<TaskJson>(sandbox, `/tasks/${cancelledId}`)).status).toBe('cancelled');
      expect(receiver.received).toHaveLength(sent);
    } finally {
      await sandbox.stop();
      await receiver.close();
    }
  });
});

describe('delivery-task sandbox --seed', { timeout: CLI_PROCESS_TEST_TIMEOUT_MS }, () => {
  const hawalli = {
    name: 'Hawalli',
    latitude: 29.3328,
    longitude: 48.0286,
    address: 'Tunis Street, Hawalli',
  };
  const seed = {
    branches: [hawalli, 'Farwaniya'],
    tasks: [
      {
        id: 'seed-1',
        orderNumber: 'SEED-1',
        customPickup: true,
        selectedBranch: 'Hawalli',
        deliveryLocation: { latitude: 29.35, longitude: 48.05, fullAddress: ['Block 3'] },
      },
      { id: 'seed-2', orderNumber: 'SEED-2', status: 'enroute' },
      { id: 'seed-3', orderNumber: 'SEED-3', status: 'failed' },
    ],
  };

  it('starts with the seed tasks and branches, charges no fee for them, and returns to them on reset', async () => {
    const sandbox = await startSandboxProcess(['--seed', seedFile('seed.json', seed)]);
    try {
      const list = await getJson<{ total: number; tasks: TaskJson[] }>(sandbox, '/tasks?sortBy=orderNumber');
      expect(list.total).toBe(3);
      expect(list.tasks.map((task) => [task.id, task.status])).toEqual([
        ['seed-1', 'pending'],
        ['seed-2', 'enroute'],
        ['seed-3', 'failed'],
      ]);
      const [first, second, third] = list.tasks;
      expect(first?.pickupLocation).toEqual({ latitude: hawalli.latitude, longitude: hawalli.longitude });
      expect(second?.statusHistory.map((entry) => entry.status)).toEqual([
        'pending',
        'requested',
        'accepted',
        'pickedup',
        'enroute',
      ]);
      expect(third?.statusHistory.map((entry) => entry.status).slice(-2)).toEqual(['enroute', 'failed']);
      const branches = await getJson<{ branches: Array<{ name: string }> }>(sandbox, '/tasks/branches');
      expect(branches.branches.map((branch) => branch.name)).toEqual(['Hawalli', 'Farwaniya']);
      expect(await getJson(sandbox, '/tasks/wallet-balance')).toEqual({
        walletAmount: MOCK_DEFAULTS.account.balance,
      });

      const moved = await sandbox.fetch('/_sandbox/tasks/seed-1/advance', { method: 'POST' });
      expect(((await moved.json()) as TaskJson).status).toBe('requested');
      await getJson(sandbox, '/tasks', { method: 'POST', body: JSON.stringify({ orderNumber: 'NEW-1' }) });
      const reset = await sandbox.fetch('/_sandbox/reset', { method: 'POST' });
      expect(await reset.json()).toEqual({ tasks: 3, walletAmount: MOCK_DEFAULTS.account.balance });
      const again = await getJson<{ tasks: TaskJson[] }>(sandbox, '/tasks?sortBy=orderNumber');
      expect(again.tasks).toEqual(list.tasks);
    } finally {
      await sandbox.stop();
    }
  });

  it('exits 2 naming the file and the field for an invalid seed', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['not-json.json', '{"tasks": [', /not JSON \(/],
      ['array.json', [], /Invalid seed: expected a JSON object of branches and tasks, got an array/],
      [
        'typo.json',
        { task: [] },
        /Invalid task: expected a field of a seed \(branches, tasks\), got an array/,
      ],
      ['not-array.json', { tasks: {} }, /Invalid tasks: expected an array, got an object/],
      [
        'latitude.json',
        { tasks: [{}, { deliveryLocation: { latitude: 91, longitude: 48 } }] },
        /: Invalid tasks\.1\.deliveryLocation\.latitude: expected a number ≤ 90, got 91/,
      ],
      [
        'status.json',
        { tasks: [{ status: 'lost' }] },
        /: Invalid tasks\.0\.status: expected 'pending', 'requested', .* or 'failed', got "lost"/,
      ],
      [
        'field.json',
        { tasks: [{ orderNumbr: 'X' }] },
        /: Invalid tasks\.0\.orderNumbr: expected a field of a POST tasks body, got "X"/,
      ],
      [
        'ids.json',
        { tasks: [{ id: 'a' }, { id: 'a' }] },
        /: Invalid tasks\.1\.id: expected an id no other seed task has, got "a"/,
      ],
      [
        'branch.json',
        { branches: ['Hawalli'], tasks: [{ customPickup: true, selectedBranch: 'Jahra' }] },
        /: Invalid tasks\.0\.selectedBranch: expected the name of a branch \("Hawalli"\), got "Jahra"/,
      ],
      [
        'branch-name.json',
        { branches: [{ id: 'b1' }] },
        /: Invalid branches\.0\.name: expected a non-empty string, got nothing/,
      ],
    ];
    const [first, ...rest] = cases.map(([name, content]) => [
      'sandbox',
      '--port',
      '0',
      '--seed',
      seedFile(name, content),
    ]);
    const results = [await runCli(first ?? []), ...(await Promise.all(rest.map((argv) => runRefused(argv))))];
    results.forEach((result, index) => {
      const [name, , message] = cases[index] ?? ['', undefined, /./];
      expect({ name, code: result.code }).toEqual({ name, code: 2 });
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines, name).toHaveLength(1);
      expect(lines[0], name).toContain(`--seed ${join(directory, name)}: `);
      expect(lines[0], name).toMatch(message);
    });
  });
});
