/**
 * The sandbox dashboard in a real browser (docs/sandbox.md): `dist/cli.js sandbox` as a child process,
 * tasks created through the SDK, a webhook receiver on 127.0.0.1, Debian's chromium through
 * playwright-core. Every main view is saved as a screenshot under artifacts/dashboard/.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APIError, DeliveryClient } from 'delivery-task-sdk';
import { movesFrom } from 'delivery-task-sdk/schemas';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, builtAfterSource, ensureBuilt } from '../../../../../test/support/build.js';
import { orderParams } from '../../../../../test/support/order-params.js';
import { REFUSED_URL } from '../../../../../test/support/refused-url.js';
import {
  killAllSandboxes,
  runCli,
  type SandboxProcess,
  startCli,
  startSandboxProcess,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../support/sandbox-process.js';
import { type Browser, browserTestsRun, screenshot, startBrowser } from './browser.js';

/** Longest wait for something to show on the page, ms (a bound on the wait, not a speed assertion). */
const SHOW_MS = 15_000;

const HOSTILE = '<img src=x onerror=alert(1)>';

let sandbox: SandboxProcess;
let receiver: WebhookReceiver;
/** Chromium, or why it did not start (then every browser test fails with that reason, not skipped). */
let started: Browser | Error = new Error('chromium was not started');
const need = (): Browser => {
  if (started instanceof Error) throw started;
  return started;
};
const browser: Pick<Browser, 'newPage'> = { newPage: (width) => need().newPage(width) };
let client: DeliveryClient;

beforeAll(async () => {
  await ensureBuilt(
    () =>
      builtAfterSource('packages/tools/dist/cli-main.js') &&
      builtAfterSource('packages/tools/dist/dashboard/dashboard.js'),
  );
  receiver = await startWebhookReceiver();
  sandbox = await startSandboxProcess(['--webhook-url', receiver.url], 'dist');
  client = new DeliveryClient({
    apiKey: sandbox.apiKey,
    sellerId: sandbox.sellerId,
    baseUrl: sandbox.baseUrl,
    maxRetries: 0,
  });
  started = await startBrowser().catch((error: unknown) =>
    error instanceof Error ? error : new Error(String(error)),
  );
}, BUILD_TIMEOUT_MS + 60_000);

afterAll(async () => {
  if (!(started instanceof Error)) await started.close();
  await sandbox?.stop();
  await receiver?.close();
  killAllSandboxes();
});

async function openDashboard(hash = '#tasks', width = 1280): Promise<{ page: Page; dialogs: string[] }> {
  const opened = await browser.newPage(width);
  await opened.page.goto(`${sandbox.baseUrl}/${hash}`);
  await opened.page.locator('#connection', { hasText: 'live' }).waitFor({ timeout: SHOW_MS });
  return opened;
}

const rowOf = (page: Page, taskId: string) => page.locator(`#tasks-table tr[data-task-id="${taskId}"]`);

describe.skipIf(!browserTestsRun)('sandbox dashboard in chromium', { timeout: 60_000 }, () => {
  it('shows tasks created through the SDK without a reload, with their fee and status', async () => {
    const { page } = await openDashboard();
    const first = await client.tasks.create(orderParams('DASH-1'));
    const second = await client.tasks.create({ ...orderParams('DASH-2'), customerName: 'Fatma Al-Sabah' });
    await rowOf(page, String(second.id)).waitFor({ timeout: SHOW_MS });
    await rowOf(page, String(first.id)).waitFor({ timeout: SHOW_MS });
    const row = rowOf(page, String(second.id));
    expect(await row.locator('td').nth(0).textContent()).toBe('DASH-2');
    expect(await row.locator('td').nth(1).textContent()).toContain('Fatma Al-Sabah');
    expect(await row.locator('td').nth(2).locator('.badge').textContent()).toBe('pending');
    expect(await row.locator('td').nth(3).textContent()).toMatch(/^\d+\.\d{3} KWD$/);

    await page.locator('#task-search').fill('fatma');
    expect(await rowOf(page, String(first.id)).isHidden()).toBe(true);
    expect(await rowOf(page, String(second.id)).isVisible()).toBe(true);
    await page.locator('#task-search').fill('');
    await page.locator('#task-status').selectOption('pending');
    expect(await rowOf(page, String(first.id)).isVisible()).toBe(true);
    await page.locator('#task-status').selectOption('');
    await screenshot(page, 'tasks');
    await page.close();
  });

  it('keeps a task created while its first list of tasks was on the way (the list read before it)', async () => {
    const { page } = await browser.newPage();
    let taken: () => void = () => {};
    const snapshotTaken = new Promise<void>((resolve) => {
      taken = resolve;
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The dashboard's first GET /_sandbox/tasks is answered by the sandbox now, and handed to the page later.
    await page.route(/\/_sandbox\/tasks$/, async (route) => {
      const response = await route.fetch();
      taken();
      await released;
      await route.fulfill({ response });
    });
    await page.goto(`${sandbox.baseUrl}/#tasks`);
    await snapshotTaken;
    const task = await client.tasks.create(orderParams('DASH-RACE'));
    const row = rowOf(page, String(task.id));
    // Shown from its live event, before the older list arrives.
    await row.waitFor({ timeout: SHOW_MS });
    const listed = page.waitForResponse(/\/_sandbox\/tasks$/);
    release();
    await listed;
    await page.locator('#task-count', { hasText: 'tasks shown' }).waitFor({ timeout: SHOW_MS });
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
    expect(await row.count()).toBe(1);
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    await page.close();
  });

  it('renders a hostile task name as text: no element made, no script run', async () => {
    const { page, dialogs } = await openDashboard();
    const task = await client.tasks.create({
      ...orderParams('<script>alert(2)</script>'),
      customerName: HOSTILE,
      specialNotes: '"><svg onload=alert(3)>',
    });
    const row = rowOf(page, String(task.id));
    await row.waitFor({ timeout: SHOW_MS });
    expect(await row.locator('td').nth(1).textContent()).toContain(HOSTILE);
    expect(await row.locator('td').nth(0).textContent()).toBe('<script>alert(2)</script>');
    await row.locator('a').click();
    await page.locator('#task-json', { hasText: 'svg onload' }).waitFor({ timeout: SHOW_MS });
    expect(await page.locator('#task-summary').textContent()).toContain(HOSTILE);
    expect(await page.locator('img, svg, main script').count()).toBe(0);
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it('advances a task from its page; the webhook reaches the receiver and its delivery row shows 200 and the latency', async () => {
    const task = await client.tasks.create(orderParams('DASH-ADV'));
    const id = String(task.id);
    const { page } = await openDashboard(`#task/${encodeURIComponent(id)}`);
    await page.locator('#task-heading', { hasText: 'DASH-ADV' }).waitFor({ timeout: SHOW_MS });
    // The "to status" list offers only moves the sandbox accepts: statuses ahead, none backwards.
    const targets = () => page.locator('#advance-target option').allTextContents();
    expect(await targets()).toEqual(movesFrom('pending'));
    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Advance one step' }).click();
    await page.locator('#task-result', { hasText: 'Now requested' }).waitFor({ timeout: SHOW_MS });
    const received = await receiver.waitFor(before + 1);
    expect(received.at(-1)?.body).toMatchObject({ _id: id, status: 'requested' });

    // To a chosen status, then a webhook-only event: the status stays accepted, the event is POSTed.
    await page.getByLabel('To status').selectOption('accepted');
    await page.getByRole('button', { name: 'Move to this status' }).click();
    await page.locator('#task-result', { hasText: 'Now accepted' }).waitFor({ timeout: SHOW_MS });
    await page.getByLabel('To status').selectOption('inprogress');
    await page.getByRole('button', { name: 'Move to this status' }).click();
    await page.locator('#task-result', { hasText: 'event inprogress sent' }).waitFor({ timeout: SHOW_MS });
    await receiver.waitFor(before + 3);
    expect(receiver.received.slice(before).map((webhook) => webhook.body.status)).toEqual([
      'requested',
      'accepted',
      'inprogress',
    ]);
    await page.locator('#task-timeline li', { hasText: 'inprogress' }).waitFor({ timeout: SHOW_MS });
    expect(await page.locator('#task-summary').textContent()).toContain('accepted');
    await page.locator('#task-webhooks li', { hasText: 'inprogress: 200' }).waitFor({ timeout: SHOW_MS });
    await screenshot(page, 'task');

    await page.locator('nav a', { hasText: 'Webhooks' }).click();
    const row = page.locator('#webhooks-table tbody tr', { hasText: 'inprogress' }).first();
    await row.waitFor({ timeout: SHOW_MS });
    expect(await row.locator('td.answer').textContent()).toBe('200');
    expect(await row.locator('td.latency').textContent()).toMatch(/^\d+ ms$/);

    // Send again: one more POST of the same body, and a row saying which delivery it repeats.
    const count = receiver.received.length;
    await row.getByRole('button', { name: /Send delivery \d+ again/ }).click();
    await receiver.waitFor(count + 1);
    expect(receiver.received.at(-1)?.body).toEqual(receiver.received[before + 2]?.body);
    await page.locator('#webhooks-table tbody tr', { hasText: 'again of #' }).waitFor({ timeout: SHOW_MS });
    await screenshot(page, 'webhooks');

    // Cancel from the task page.
    await page.goto(`${sandbox.baseUrl}/#task/${encodeURIComponent(id)}`);
    await page.getByRole('button', { name: 'Cancel task' }).click();
    await page.locator('#task-result', { hasText: 'Now cancelled' }).waitFor({ timeout: SHOW_MS });
    expect((await client.tasks.retrieve(id)).status).toBe('cancelled');
    // From a final status: nothing to offer, every move button off.
    await expect.poll(targets, { timeout: SHOW_MS }).toEqual([]);
    for (const name of ['Advance one step', 'Move to this status', 'Cancel task', 'Fail task']) {
      expect(await page.getByRole('button', { name }).isDisabled(), name).toBe(true);
    }
    await page.close();
  });

  it('shows a timeout and a connection error as such in the deliveries', async () => {
    // A receiver that is gone (the POST cannot connect) and one that never answers (the 5 s timeout).
    const goneUrl = `${REFUSED_URL}/webhooks`;
    const silent: Server = createServer(() => {
      // Never answers.
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/webhooks`;
    const others = await Promise.all([
      startSandboxProcess(['--webhook-url', goneUrl], 'dist'),
      startSandboxProcess(['--webhook-url', silentUrl], 'dist'),
    ]);
    try {
      const answers = await Promise.all(
        others.map(async (other) => {
          const created = await other.fetch('/tasks', {
            method: 'POST',
            headers: other.headers({ 'content-type': 'application/json' }),
            body: JSON.stringify(orderParams('DASH-NO-ANSWER')),
          });
          const { id } = ((await created.json()) as { data: { createTask: { id: string } } }).data.createTask;
          const { page } = await browser.newPage();
          await page.goto(`${other.baseUrl}/#webhooks`);
          await page.locator('#connection', { hasText: 'live' }).waitFor({ timeout: SHOW_MS });
          await other.fetch(`/_sandbox/tasks/${id}/advance`, { method: 'POST' });
          const answer = page.locator('#webhooks-table tbody tr.failed td.answer').first();
          await answer.waitFor({ timeout: SHOW_MS });
          const shown = await answer.textContent();
          if (other === others[1]) await screenshot(page, 'webhooks-timeout');
          await page.close();
          return shown;
        }),
      );
      expect(answers[0]).toMatch(/^connection error: /);
      expect(answers[1]).toMatch(/^timeout: no answer within 5000 ms/);
    } finally {
      await Promise.all(others.map((other) => other.stop()));
      silent.closeAllConnections();
      silent.close();
    }
  }, 40_000);

  it('switches a fault on from the page, the SDK gets it, and off again', async () => {
    const { page } = await openDashboard('#faults');
    const card = page.locator('form[data-fault-kind="status"]');
    await card.waitFor({ timeout: SHOW_MS });
    // The kinds come from the sandbox (GET /_sandbox/faults), not from a list in the page.
    const kinds = (await (await sandbox.fetch('/_sandbox/faults')).json()) as {
      kinds: Array<{ kind: string }>;
    };
    expect(await page.locator('form[data-fault-kind]').count()).toBe(kinds.kinds.length);
    await card.getByLabel('status', { exact: true }).fill('503');
    await card.getByLabel('operation').selectOption('wallet.retrieveBalance');
    await card.getByRole('button', { name: 'Switch status on' }).click();
    await page
      .locator('#faults-active li', { hasText: 'wallet.retrieveBalance' })
      .waitFor({ timeout: SHOW_MS });
    const failure = await client.wallet.retrieveBalance().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(APIError);
    expect((failure as APIError).status).toBe(503);
    await screenshot(page, 'faults');
    await card.getByRole('button', { name: 'Switch status off' }).click();
    await page.locator('#faults-active li', { hasText: 'No fault is on' }).waitFor({ timeout: SHOW_MS });
    expect((await client.wallet.retrieveBalance()).walletAmount).toBeGreaterThan(0);
    await page.close();
  });

  it('shows the wallet with its top-ups, and the payment page completes one', async () => {
    const topUp = await client.wallet.topUp({ amount: 5 });
    const { page } = await openDashboard('#wallet');
    const link = page.getByRole('link', { name: 'Open payment page' }).first();
    await link.waitFor({ timeout: SHOW_MS });
    const before = (await client.wallet.retrieveBalance()).walletAmount;
    await screenshot(page, 'wallet');
    await page.goto(String(topUp.paymentUrl));
    await page.getByRole('button', { name: 'Pay 5.000 KWD' }).click();
    await page.locator('h1', { hasText: 'Top-up paid' }).waitFor({ timeout: SHOW_MS });
    await screenshot(page, 'pay');
    expect((await client.wallet.retrieveBalance()).walletAmount).toBeCloseTo(before + 5, 3);
    await page.goto(`${sandbox.baseUrl}/#wallet`);
    await page.locator('#topups-table td', { hasText: 'paid' }).first().waitFor({ timeout: SHOW_MS });
    await page.close();
  });

  it('shows the request log with credentials redacted', async () => {
    const { page } = await openDashboard('#requests');
    await client.branches.list();
    const row = page.locator('#requests-table tbody tr', { hasText: 'branches.list' }).first();
    await row.waitFor({ timeout: SHOW_MS });
    await row.locator('summary').click();
    const details = (await row.locator('pre').textContent()) ?? '';
    expect(details).toContain('[redacted]');
    expect(details).not.toContain(sandbox.apiKey);
    expect(details).not.toContain(sandbox.sellerId);
    await screenshot(page, 'requests');
    await page.close();
  });

  it('reads the request log a page at a time, older pages on demand', async () => {
    for (let index = 0; index < 120; index++) await client.branches.list();
    const { page } = await openDashboard('#requests');
    const rows = page.locator('#requests-table tbody tr');
    await expect.poll(() => rows.count(), { timeout: SHOW_MS }).toBe(100);
    await page.getByRole('button', { name: 'Show older requests' }).click();
    await expect.poll(() => rows.count(), { timeout: SHOW_MS }).toBeGreaterThan(100);
    await page.close();
  });

  it('is usable at 375 px wide and from the keyboard', async () => {
    const { page } = await openDashboard('#tasks', 375);
    await page.locator('#tasks-table tbody tr').first().waitFor({ timeout: SHOW_MS });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'tasks-375px');
    // Tab to the skip link, then into the navigation, and open Webhooks with Enter.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to the content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Webhooks');
    await page.keyboard.press('Enter');
    await page.locator('#view-webhooks').waitFor({ timeout: SHOW_MS });
    // Every control on every view has a label.
    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll('input, select, textarea, button')]
        .filter((control) => {
          const element = control as HTMLInputElement;
          return !(
            element.labels?.length ||
            element.getAttribute('aria-label') ||
            element.textContent?.trim()
          );
        })
        .map((control) => control.outerHTML),
    );
    expect(unlabelled).toEqual([]);
    await page.close();
  });

  it('refuses control requests from a page of another origin, text/plain POSTs included', async () => {
    const tasksBefore = (await client.tasks.list()).total;
    // A page served from another origin (another port on 127.0.0.1) tries to reset the sandbox.
    const hostile: Server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title>');
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    try {
      const { page } = await browser.newPage();
      await page.goto(`http://127.0.0.1:${(hostile.address() as AddressInfo).port}/`);
      const outcomes = await page.evaluate(async (target) => {
        const results: string[] = [];
        for (const init of [
          { method: 'POST', mode: 'no-cors', body: 'x', headers: { 'content-type': 'text/plain' } },
          { method: 'POST', mode: 'cors', body: '{}', headers: { 'content-type': 'text/plain' } },
        ] as RequestInit[]) {
          try {
            const response = await fetch(`${target}/_sandbox/reset`, init);
            results.push(`answered ${response.type} ${response.status}`);
          } catch (error) {
            results.push(`failed ${String(error)}`);
          }
        }
        return results;
      }, sandbox.baseUrl);
      expect(outcomes).toHaveLength(2);
      await page.close();
    } finally {
      await new Promise<void>((resolve) => {
        hostile.close(() => resolve());
        hostile.closeAllConnections();
      });
    }
    // Nothing was reset: the tasks are still there.
    expect((await client.tasks.list()).total).toBe(tasksBefore);
    const refused = await fetch(`${sandbox.controlUrl}/reset`, {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe('FOREIGN_ORIGIN');
  });
});

describe.skipIf(!browserTestsRun)('a sandbox beyond loopback', { timeout: 60_000 }, () => {
  it('refuses to start on 0.0.0.0 without --control-token', async () => {
    const result = await runCli(['sandbox', '--port', '0', '--host', '0.0.0.0'], 'dist');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--host 0\.0\.0\.0 is not a loopback address: give --control-token/);
  });

  it('with a token: warns, requires it on every control call, and the page works with it from the URL fragment', async () => {
    const token = 'dash-token-0123456789abcdef';
    const command = await startCli(
      ['sandbox', '--port', '0', '--json', '--host', '0.0.0.0', '--control-token', token],
      'dist',
    );
    try {
      const started = JSON.parse(command.line) as { baseUrl: string; apiKey: string; sellerId: string };
      expect(command.line).not.toContain(token);
      await expect.poll(() => command.stderr()).toMatch(/warning: listening on 0\.0\.0\.0/);
      expect(command.stderr()).not.toContain(token);
      const local = started.baseUrl.replace('0.0.0.0', '127.0.0.1');
      expect((await fetch(`${local}/_sandbox/tasks`)).status).toBe(401);
      expect(
        (
          await fetch(`${local}/_sandbox/reset`, {
            method: 'POST',
            headers: { authorization: 'Bearer wrong-token-0123456789' },
          })
        ).status,
      ).toBe(401);
      expect(
        (await fetch(`${local}/_sandbox/tasks`, { headers: { authorization: `Bearer ${token}` } })).status,
      ).toBe(200);
      const other = new DeliveryClient({
        apiKey: started.apiKey,
        sellerId: started.sellerId,
        baseUrl: local,
      });
      const task = await other.tasks.create(orderParams('DASH-TOKEN'));

      const { page } = await browser.newPage();
      await page.goto(`${local}/#token=${token}`);
      await page.locator('#connection', { hasText: 'live' }).waitFor({ timeout: SHOW_MS });
      await rowOf(page, String(task.id)).waitFor({ timeout: SHOW_MS });
      expect(page.url()).not.toContain(token);
      await page.close();

      // Without it in the URL, the page asks for it once.
      const { page: asking } = await browser.newPage();
      await asking.goto(`${local}/`);
      await asking.getByLabel('Control token').waitFor({ timeout: SHOW_MS });
      await screenshot(asking, 'token');
      await asking.close();
    } finally {
      await command.stop();
    }
  });
});
