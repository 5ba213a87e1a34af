/**
 * Debian's chromium driven by playwright-core, for the dashboard's browser tests. Never downloads a
 * browser: it runs `/usr/bin/chromium` (or `CHROMIUM_PATH`) with a fresh profile in a temporary folder.
 * Without chromium the tests are skipped, except under `CI=true`, where they fail (`.ci/run` installs
 * it with apt-get).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { ROOT } from '../../../../../test/support/root.js';

/** The chromium executable. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** True when the browser tests run: chromium is there, or CI requires them (they fail without it). */
export const browserTestsRun = existsSync(CHROMIUM_PATH) || process.env.CI === 'true';

/** Where screenshots go: git-ignored, kept by CI as an artifact. */
export const ARTIFACTS = join(ROOT, 'artifacts', 'dashboard');

/** The committed copies shown in docs/sandbox.md, written when `DASHBOARD_DOC_IMAGES=1`. */
export const DOC_IMAGES = join(ROOT, 'docs', 'images');

/** A running chromium with one browser context. */
export interface Browser {
  readonly context: BrowserContext;
  /** A new page; every `dialog` (an `alert` that should never run) is recorded and dismissed. */
  newPage(width?: number): Promise<{ page: Page; dialogs: string[] }>;
  close(): Promise<void>;
}

/** Starts chromium headless with a fresh profile. */
export async function startBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`no chromium at ${CHROMIUM_PATH}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'delivery-task-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
    timeout: 60_000,
  });
  return {
    context,
    async newPage(width = 1280) {
      const page = await context.newPage();
      await page.setViewportSize({ width, height: 900 });
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      return { page, dialogs };
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a screenshot of `page` as `artifacts/dashboard/<name>.png` (and in docs/images/ when asked). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  if (process.env.DASHBOARD_DOC_IMAGES === '1') {
    mkdirSync(DOC_IMAGES, { recursive: true });
    await page.screenshot({ path: join(DOC_IMAGES, `dashboard-${name}.png`), fullPage: true });
  }
}
