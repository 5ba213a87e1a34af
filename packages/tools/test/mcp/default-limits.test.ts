/**
 * `delivery-task mcp --allow create` started as a new user starts it, with no other flag: a child process
 * over stdio against `delivery-task sandbox`, driven by the MCP SDK's client (without elicitation). It runs
 * with the stated default limits, says so at start, counts the day's spending in a file that outlives the
 * process, and lifts the limits only with `--no-limits`, saying so.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCliProcess } from '../support/cli.js';
import { killAllSandboxes, type SandboxProcess, startSandboxProcess } from '../support/sandbox-process.js';
import { call, connectStdio, dataOf, newStateDir, ORIGIN, refusalOf, type StdioSession } from './support.js';

/** Wafra, about 90 km from the mock's origin: a fee above the default 5 KWD limit. */
const WAFRA = { latitude: 28.5667, longitude: 47.9333 };
/** About 33 km from the origin: a fee under 5 KWD, five of which pass the default 20 KWD cap. */
const FAR = { latitude: 29.0769, longitude: 48.0838 };

let sandbox: SandboxProcess;
let env: Record<string, string>;
const sessions: StdioSession[] = [];

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--balance', '500']);
  env = {
    DELIVERY_API_KEY: sandbox.apiKey,
    DELIVERY_SELLER_ID: sandbox.sellerId,
    DELIVERY_BASE_URL: sandbox.baseUrl,
  };
}, 60_000);
afterAll(async () => {
  await Promise.all(sessions.map((session) => session.close().catch(() => {})));
  killAllSandboxes();
});

async function start(args: readonly string[], stateDir: string): Promise<StdioSession> {
  const session = await connectStdio(args, { ...env, XDG_STATE_HOME: stateDir });
  sessions.push(session);
  return session;
}

/** Quotes `to` from the origin; the estimateId and the fee in fils. */
async function quoteTo(
  session: StdioSession,
  to: typeof FAR,
): Promise<{ estimateId: string; feeFils: number }> {
  const quoted = dataOf(await call(session.client, 'estimate_delivery', { from: ORIGIN, to }));
  return { estimateId: quoted.estimateId as string, feeFils: Math.round(Number(quoted.priceKwd) * 1000) };
}

/** The two-step booking of `orderNumber` to `to`: the second step's result, or the first's refusal. */
async function book(session: StdioSession, orderNumber: string, to: typeof FAR) {
  const args = { orderNumber, deliveryLocation: to, estimateId: (await quoteTo(session, to)).estimateId };
  const first = await call(session.client, 'create_delivery', args);
  if (first.isError) return first;
  return call(session.client, 'create_delivery', {
    ...args,
    confirmationToken: dataOf(first).confirmationToken,
  });
}

/** Tasks of the sandbox carrying `orderNumber`. */
async function tasksOf(orderNumber: string): Promise<unknown[]> {
  const response = await sandbox.fetch(`/tasks?search=${encodeURIComponent(orderNumber)}&ignoreRegex=true`, {
    headers: sandbox.headers(),
  });
  return ((await response.json()) as { tasks: unknown[] }).tasks;
}

describe('delivery-task mcp --allow create, no other flag', () => {
  const stateDir = newStateDir();
  let spentFils = 0;
  let day = '';

  it('states its default limits, how bookings are confirmed and where spending is counted', async () => {
    const session = await start(['--allow', 'create'], stateDir);
    await call(session.client, 'get_wallet_balance');
    const stderr = session.stderr();
    expect(stderr).toContain('delivery-task mcp: serving on stdio; allow read, create');
    expect(stderr).toContain('fee limit per delivery 5.000 KWD (default; --max-fee-kwd)');
    expect(stderr).toContain('daily cap 20.000 KWD (default; --daily-cap-kwd)');
    expect(stderr).toContain('otherwise by the agent alone, repeating its call with a token');
    expect(stderr).toContain(`spending counted in ${join(stateDir, 'delivery-task', 'mcp-store.json')}`);
    expect(stderr).not.toContain('warning');
    await vi.waitFor(
      () =>
        expect(session.stderr()).toContain(
          'client "delivery-task-tests" connected; it cannot ask the person (no elicitation): bookings are confirmed by the agent alone',
        ),
      { timeout: 10_000 },
    );
    const policy = dataOf(await call(session.client, 'get_wallet_balance')).policy;
    expect(policy).toMatchObject({ maxFeeKwd: '5.000', dailyCapKwd: '20.000' });
  }, 60_000);

  it('refuses a booking above the default fee limit, and sends nothing', async () => {
    const session = await start(['--allow', 'create'], stateDir);
    const { feeFils } = await quoteTo(session, WAFRA);
    expect(feeFils).toBeGreaterThan(5000);
    const refused = refusalOf(await book(session, 'DEFAULT-FEE-1', WAFRA));
    expect(refused).toMatchObject({ rule: 'maxFeeKwd', maxFeeKwd: '5.000' });
    expect(await tasksOf('DEFAULT-FEE-1')).toEqual([]);
  }, 60_000);

  it('stops at the default daily cap', async () => {
    const session = await start(['--allow', 'create'], stateDir);
    const { feeFils } = await quoteTo(session, FAR);
    expect(feeFils).toBeLessThanOrEqual(5000);
    let booked = 0;
    for (let index = 1; index <= 30; index++) {
      const result = await book(session, `DEFAULT-CAP-${index}`, FAR);
      if (result.isError) {
        const refused = refusalOf(result);
        expect(refused).toMatchObject({ rule: 'dailyCapKwd', dailyCapKwd: '20.000' });
        spentFils = Math.round(Number(refused.spentTodayKwd) * 1000);
        day = String(refused.day);
        break;
      }
      expect(dataOf(result).status).toBe('booked');
      booked++;
    }
    expect(booked).toBe(Math.floor(20_000 / feeFils));
    expect(spentFils).toBe(booked * feeFils);
  }, 120_000);

  it("keeps the day's count across a restart of the server", async () => {
    expect(spentFils).toBeGreaterThan(0);
    const session = await start(['--allow', 'create'], stateDir);
    const policy = dataOf(await call(session.client, 'get_wallet_balance')).policy as Record<string, string>;
    // The same Kuwait day (a run across its midnight starts a new count, as it should).
    const expected = policy.day === day ? spentFils : 0;
    expect(Math.round(Number(policy.spentTodayKwd) * 1000)).toBe(expected);
    if (expected > 0) {
      expect(refusalOf(await book(session, 'DEFAULT-AFTER-RESTART', FAR)).rule).toBe('dailyCapKwd');
      expect(await tasksOf('DEFAULT-AFTER-RESTART')).toEqual([]);
    }
  }, 60_000);
});

describe('delivery-task mcp --allow create --no-limits', () => {
  it('says it runs without limits, and books above the default fee limit', async () => {
    const session = await start(['--allow', 'create', '--no-limits'], newStateDir());
    await call(session.client, 'get_wallet_balance');
    expect(session.stderr()).toContain(
      'delivery-task mcp: warning: --no-limits: no fee limit per delivery and no daily cap',
    );
    expect(session.stderr()).toContain('no fee limit per delivery (--no-limits); no daily cap (--no-limits)');
    expect(dataOf(await book(session, 'NO-LIMITS-1', WAFRA))).toMatchObject({
      status: 'booked',
      charged: true,
    });
  }, 60_000);
});

describe('delivery-task mcp --confirmation elicitation', () => {
  it('refuses every booking from a client that cannot ask the person, and says so when it connects', async () => {
    const session = await start(['--allow', 'create', '--confirmation', 'elicitation'], newStateDir());
    const refused = refusalOf(await book(session, 'PERSON-ONLY-1', FAR));
    expect(refused).toMatchObject({ rule: 'confirmation', needs: 'elicitation' });
    expect(await tasksOf('PERSON-ONLY-1')).toEqual([]);
    expect(session.stderr()).toContain('bookings confirmed by the person only');
    await vi.waitFor(
      () =>
        expect(session.stderr()).toContain('it cannot ask the person (no elicitation): bookings are refused'),
      { timeout: 10_000 },
    );
  }, 60_000);
});

describe('delivery-task mcp --help', () => {
  it('states the default limits and --no-limits', async () => {
    const help = await runCliProcess(['mcp', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('(default 5.000)');
    expect(help.stdout).toContain('(default 20.000)');
    expect(help.stdout).toContain('--no-limits');
    expect(help.stdout).toContain('--store-file PATH');
  }, 60_000);

  it('refuses a store file it cannot write, before serving', async () => {
    // A folder that cannot be made: its parent is a file.
    const parent = join(newStateDir(), 'a-file');
    writeFileSync(parent, '');
    const path = join(parent, 'store.json');
    const run = await runCliProcess(['mcp', '--allow', 'create', '--store-file', path], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`cannot count spending in ${path} (E`);
    expect(run.stderr).toContain('give --store-file PATH or --redis URL');
  }, 60_000);

  it('refuses a store file that is not one, before serving', async () => {
    const path = join(newStateDir(), 'store.json');
    writeFileSync(path, 'not json');
    const run = await runCliProcess(['mcp', '--allow', 'create', '--store-file', path], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${path} is not JSON`);
  }, 60_000);
});
