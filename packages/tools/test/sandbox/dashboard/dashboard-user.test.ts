/**
 * The dashboard as a new user meets it (docs/sandbox.md, "Dashboard"), in Debian's chromium through
 * playwright-core against `dist/cli.js sandbox` as a child process: empty tabs say so, an active fault's
 * card shows the rule that is on, two tasks of one order number are flagged, times can be shown in
 * Kuwait time, and the webhook URL can be changed from the page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, builtAfterSource, ensureBuilt } from '../../../../../test/support/build.js';
import {
  killAllSandboxes,
  type SandboxProcess,
  startSandboxProcess,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../support/sandbox-process.js';
import { type Browser, browserTestsRun, screenshot, startBrowser } from './browser.js';

/** Longest wait for something to show on the page, ms (a bound on the wait, not a speed assertion). */
const SHOW_MS = 15_000;

let sandbox: SandboxProcess;
let receiver: WebhookReceiver;
let started: Browser | Error = new Error('chromium was not started');
const browser = (): Browser => {
  if (started instanceof Error) throw started;
  return started;
};

beforeAll(async () => {
  await ensureBuilt(
    () =>
      builtAfterSource('packages/tools/dist/cli-main.js') &&
      builtAfterSource('packages/tools/dist/dashboard/dashboard.js'),
  );
  receiver = await startWebhookReceiver();
  sandbox = await startSandboxProcess([], 'dist');
  started = await startBrowser().catch((error: unknown) =>
    error instanceof Error ? error : new Error(String(error)),
  );
}, BUILD_TIMEOUT_MS + 60_000);

afterAll(async () => {
  if (!(started instanceof Error)) await started.close();
  await sandbox?.stop();
  await receiver?.close();
  killAllSandboxes();
}, 60_000);

async function open(hash: string) {
  const { page } = await browser().newPage();
  await page.goto(`${sandbox.baseUrl}/${hash}`);
  await page.locator('#connection', { hasText: 'live' }).waitFor({ timeout: SHOW_MS });
  return page;
}

/** Creates a task through the service's route (no SDK: the SDK would not create an order twice). */
async function createTask(orderNumber: string): Promise<{ id: string; createdAt: string }> {
  const response = await sandbox.fetch('/tasks', {
    method: 'POST',
    headers: sandbox.headers({ 'content-type': 'application/json' }),
    body: JSON.stringify({ orderNumber, deliveryLocation: { latitude: 29.3339, longitude: 48.0761 } }),
  });
  const id = ((await response.json()) as { data: { createTask: { id: string } } }).data.createTask.id;
  const read = await sandbox.fetch(`/tasks/${id}`, { headers: sandbox.headers() });
  return { id, createdAt: String(((await read.json()) as { createdAt: unknown }).createdAt) };
}

const control = (path: string, body?: unknown) =>
  sandbox.fetch(`/_sandbox/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });

describe.skipIf(!browserTestsRun)('the dashboard as a new user meets it', { timeout: 60_000 }, () => {
  it('says "none yet" on every empty tab', async () => {
    const page = await open('#tasks');
    const empty = (table: string) => page.locator(`#${table} tbody tr.empty`);
    await empty('tasks-table').waitFor({ timeout: SHOW_MS });
    expect(await empty('tasks-table').textContent()).toContain('None yet');
    for (const [view, table] of [
      ['webhooks', 'webhooks-table'],
      ['requests', 'requests-table'],
      ['wallet', 'fees-table'],
    ] as const) {
      await page.locator('nav a', { hasText: new RegExp(`^${view}$`, 'i') }).click();
      await empty(table).waitFor({ timeout: SHOW_MS });
      expect(await empty(table).textContent(), view).toContain('None yet');
    }
    await screenshot(page, 'empty-wallet');
    // The first task replaces the sentence.
    const { id } = await createTask('USER-FIRST');
    await page.locator('nav a', { hasText: 'Tasks' }).click();
    await page.locator(`#tasks-table tr[data-task-id="${id}"]`).waitFor({ timeout: SHOW_MS });
    expect(await empty('tasks-table').count()).toBe(0);
    await page.close();
  });

  it("shows an active fault rule's own values on its card, not the form's defaults", async () => {
    const rule = {
      kind: 'status',
      status: 429,
      operation: 'tasks.create',
      times: 3,
      headers: { 'retry-after': '7' },
    };
    expect((await control('faults', rule)).status).toBe(201);
    const page = await open('#faults');
    const card = page.locator('form[data-fault-kind="status"]');
    await card.locator('.badge.on').waitFor({ timeout: SHOW_MS });
    expect(await card.getByLabel('status', { exact: true }).inputValue()).toBe('429');
    expect(await card.getByLabel('operation').inputValue()).toBe('tasks.create');
    expect(await card.getByLabel('requests').inputValue()).toBe('3');
    expect(JSON.parse(await card.getByLabel('headers (optional)').inputValue())).toEqual({
      'retry-after': '7',
    });
    // A card whose kind is off keeps its defaults.
    expect(await page.locator('form[data-fault-kind="delay"]').getByLabel('ms').inputValue()).toBe('2000');
    await screenshot(page, 'fault-active');
    const cleared = await sandbox.fetch('/_sandbox/faults', { method: 'DELETE' });
    expect(cleared.status).toBe(200);
    await page.locator('#faults-active li', { hasText: 'No fault is on' }).waitFor({ timeout: SHOW_MS });
    await page.close();
  });

  it('flags two tasks of one order number, on their rows and on their pages', async () => {
    const page = await open('#tasks');
    const first = await createTask('USER-TWICE');
    const single = await createTask('USER-ONCE');
    const second = await createTask('USER-TWICE');
    const flag = (id: string) =>
      page.locator(`#tasks-table tr[data-task-id="${id}"] [data-flag="same-order"]`);
    await flag(second.id).waitFor({ timeout: SHOW_MS });
    // The first row is flagged too, once the second task arrives.
    await flag(first.id).waitFor({ timeout: SHOW_MS });
    expect(await flag(first.id).textContent()).toBe('2 tasks of this order');
    await page.locator(`#tasks-table tr[data-task-id="${single.id}"]`).waitFor({ timeout: SHOW_MS });
    expect(await flag(single.id).count()).toBe(0);
    await screenshot(page, 'same-order');
    // A page opened afresh flags them from its first list.
    await page.reload();
    await flag(first.id).waitFor({ timeout: SHOW_MS });
    await page.goto(`${sandbox.baseUrl}/#task/${encodeURIComponent(first.id)}`);
    await page.locator('#task-summary', { hasText: '2 tasks carry it' }).waitFor({ timeout: SHOW_MS });
    await page.close();
  });

  it('shows times in Kuwait time (UTC+3) when asked, and remembers it', async () => {
    const page = await open('#tasks');
    const task = await createTask('USER-TIME');
    const created = page.locator(`#tasks-table tr[data-task-id="${task.id}"] td`).nth(4);
    await created.waitFor({ timeout: SHOW_MS });
    await page.getByLabel('Kuwait time (UTC+3)').check();
    const kuwait = new Date(Date.parse(task.createdAt) + 3 * 3_600_000)
      .toISOString()
      .slice(0, 19)
      .replace('T', ' ');
    await expect.poll(() => created.textContent(), { timeout: SHOW_MS }).toBe(`${kuwait} Kuwait`);
    await page.reload();
    await page.locator('#connection', { hasText: 'live' }).waitFor({ timeout: SHOW_MS });
    expect(await page.getByLabel('Kuwait time (UTC+3)').isChecked()).toBe(true);
    await expect.poll(() => created.textContent(), { timeout: SHOW_MS }).toBe(`${kuwait} Kuwait`);
    await page.getByLabel('Kuwait time (UTC+3)').uncheck();
    await expect.poll(() => created.textContent(), { timeout: SHOW_MS }).not.toContain('Kuwait');
    await page.close();
  });

  it('changes where webhooks go from the Webhooks tab', async () => {
    const page = await open('#webhooks');
    await page.getByLabel('Webhook URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Send webhooks here' }).click();
    await page
      .locator('#webhook-url', { hasText: `POSTed to ${receiver.url}` })
      .waitFor({ timeout: SHOW_MS });
    const { id } = await createTask('USER-HOOK');
    expect((await control(`tasks/${id}/advance`, {})).status).toBe(200);
    const received = await receiver.waitFor(1);
    expect(received[0]?.body).toMatchObject({ _id: id, status: 'requested' });
    await page.locator('#webhooks-table tbody tr', { hasText: 'requested' }).waitFor({ timeout: SHOW_MS });
    await page.getByRole('button', { name: 'Stop sending' }).click();
    await page.locator('#webhook-url', { hasText: 'No webhook URL' }).waitFor({ timeout: SHOW_MS });
    expect(((await (await control('webhooks')).json()) as { webhookUrl: unknown }).webhookUrl).toBeNull();
    await page.close();
  });
});
