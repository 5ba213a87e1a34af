/**
 * Retakes docs/images/docs-site.png, the docs site's start page as CONTRIBUTING.md shows it:
 * `npm run docs && npm run docs:screenshot`. Serves `docs/site/` on a free loopback port and opens it in
 * Debian's chromium (`/usr/bin/chromium`, or `CHROMIUM_PATH`) driven by playwright-core, headless, with a
 * fresh profile; playwright-core never downloads a browser.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { serveDocs } from './serve-docs.js';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const output = 'docs/images/docs-site.png';
if (!existsSync('docs/site/index.html')) {
  console.error('docs:screenshot: no docs/site/index.html; build the site with npm run docs');
  process.exit(1);
}
if (!existsSync(executablePath)) {
  console.error(
    `docs:screenshot: no chromium at ${executablePath}: apt-get install -y chromium (or set CHROMIUM_PATH)`,
  );
  process.exit(1);
}

const { server, url } = await serveDocs('docs/site', 0);
const profile = mkdtempSync(join(tmpdir(), 'delivery-task-docs-chromium-'));
try {
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
    colorScheme: 'light',
    timeout: 60_000,
  });
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'networkidle' });
    await page.screenshot({ path: output });
    console.log(`docs:screenshot: ${url} → ${output}`);
  } finally {
    await context.close();
  }
} finally {
  rmSync(profile, { recursive: true, force: true });
  server.close();
}
