/** The sandbox's web pages (docs/sandbox.md). */
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { kwd } from 'delivery-task-sdk';
import type { MockDeliveryService, MockObservers } from 'delivery-task-sdk/testing';
import { TopUpLinkError } from 'delivery-task-sdk/testing';

/** The Content-Security-Policy of every sandbox page. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** The path prefix of the dashboard's script and style. */
export const DASHBOARD_ASSET_PATH = '/_dashboard';

/** Largest body of a payment form POST, bytes. */
const MAX_PAY_FORM_BYTES = 1024;

/** One static file, held in memory. */
interface Asset {
  readonly type: string;
  readonly bytes: Buffer;
  readonly gzipped: Buffer;
  readonly etag: string;
}

const ASSET_FILES = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  [`${DASHBOARD_ASSET_PATH}/dashboard.js`]: ['dashboard.js', 'text/javascript; charset=utf-8'],
  [`${DASHBOARD_ASSET_PATH}/dashboard.css`]: ['dashboard.css', 'text/css; charset=utf-8'],
} as const;

/** The folder this module runs from (ESM or the CommonJS bundle). */
function moduleFolder(): string {
  if (typeof __dirname === 'string') return __dirname;
  return dirname(fileURLToPath(import.meta.url));
}

/**
 * Where the built dashboard is: `dashboard/` beside the bundles of `dist/` (`cli-main.js`, `sandbox.js`),
 * or from the sources, the build's `dist/dashboard/`. `undefined` when there is none (the sandbox then
 * answers `/` with 503).
 */
export function dashboardFolder(): string | undefined {
  const here = moduleFolder();
  const candidates = [join(here, 'dashboard'), join(here, '..', '..', 'dist', 'dashboard')];
  return candidates.find(
    (folder) => existsSync(join(folder, 'dashboard.js')) && existsSync(join(folder, 'index.html')),
  );
}

/** Reads the dashboard's files once; an empty map when it is not built. */
export function loadDashboard(folder = dashboardFolder()): ReadonlyMap<string, Asset> {
  const assets = new Map<string, Asset>();
  if (folder === undefined) return assets;
  for (const [path, [file, type]] of Object.entries(ASSET_FILES)) {
    const bytes = readFileSync(join(folder, file));
    const gzipped = gzipSync(bytes, { level: 9 });
    assets.set(path, { type, bytes, gzipped, etag: `"${bytes.length.toString(16)}-${hashOf(bytes)}"` });
  }
  return assets;
}

function hashOf(bytes: Buffer): string {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash.toString(16);
}

/** Headers every page gets. */
function pageHeaders(type: string): Record<string, string> {
  return {
    'content-type': type,
    'content-security-policy': PAGE_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'x-frame-options': 'DENY',
  };
}

/** True for `/` and the paths under `/_dashboard/`. */
export function isDashboardPath(pathname: string): boolean {
  return pathname === '/' || pathname.startsWith(`${DASHBOARD_ASSET_PATH}/`);
}

/**
 * Answers `GET /` and the dashboard's assets; `false` when the path is not one of them.
 * A HEAD is answered like a GET without the body; other methods get 405.
 */
export function answerDashboardRequest(
  assets: ReadonlyMap<string, Asset>,
  request: IncomingMessage,
  response: ServerResponse,
  pathname: string,
): boolean {
  if (!isDashboardPath(pathname)) return false;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('Method not allowed\n');
    return true;
  }
  if (assets.size === 0 && pathname === '/') {
    response
      .writeHead(503, pageHeaders('text/plain; charset=utf-8'))
      .end(
        'The sandbox dashboard is not built: run `npm run build` (the control endpoints work without it).\n',
      );
    return true;
  }
  const asset = assets.get(pathname);
  if (!asset) {
    response.writeHead(404, pageHeaders('text/plain; charset=utf-8')).end('Not found\n');
    return true;
  }
  const headers = {
    ...pageHeaders(asset.type),
    etag: asset.etag,
    'cache-control': 'no-cache',
    vary: 'accept-encoding',
  };
  if (request.headers['if-none-match'] === asset.etag) {
    response.writeHead(304, headers).end();
    return true;
  }
  const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  const body = gzip ? asset.gzipped : asset.bytes;
  response.writeHead(200, {
    ...headers,
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    'content-length': String(body.length),
  });
  response.end(request.method === 'HEAD' ? undefined : body);
  return true;
}

/** Text for HTML: `&`, `<`, `>`, `"` and `'` escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function payPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · delivery-task sandbox</title><link rel="stylesheet" href="${DASHBOARD_ASSET_PATH}/dashboard.css"></head>
<body><main class="pay"><h1>${escapeHtml(title)}</h1>${body}<p><a href="/#wallet">Sandbox dashboard: wallet</a></p></main></body></html>
`;
}

function sendPage(response: ServerResponse, status: number, html: string): void {
  response
    .writeHead(status, { ...pageHeaders('text/html; charset=utf-8'), 'cache-control': 'no-store' })
    .end(html);
}

/** True for `/pay/<token>`. */
export function isPayPath(pathname: string): boolean {
  return /^\/pay\/[^/]+\/?$/.test(pathname);
}

/**
 * Answers `GET /pay/<token>` (the payment page of a top-up link: amount, expiry, a "Pay" button) and
 * `POST /pay/<token>` (pays it through `mock.completeTopUp`, as `POST /_sandbox/top-ups/complete` does).
 * An unknown link is a 404 page, a used one 409, an expired one 410.
 */
export async function answerPayRequest(
  mock: MockDeliveryService,
  observers: MockObservers,
  request: IncomingMessage,
  response: ServerResponse,
  pathname: string,
): Promise<void> {
  const path = pathname.replace(/\/$/, '');
  const topUp = observers.topUps().find((issued) => new URL(issued.paymentUrl).pathname === path);
  if (request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'POST') {
    response.writeHead(405, { allow: 'GET, POST', 'content-type': 'text/plain' }).end('Method not allowed\n');
    return;
  }
  if (!topUp) {
    sendPage(
      response,
      404,
      payPage(
        'Unknown payment link',
        '<p>This sandbox did not issue this top-up link (or it was reset since).</p>',
      ),
    );
    return;
  }
  const amount = `${kwd.fromFils(topUp.amountFils)} KWD`;
  if (request.method === 'POST') {
    let length = 0;
    for await (const chunk of request) {
      length += (chunk as Buffer).length;
      if (length > MAX_PAY_FORM_BYTES) {
        response
          .writeHead(413, { connection: 'close', 'content-type': 'text/plain' })
          .end('Payload too large\n');
        return;
      }
    }
    try {
      const balance = mock.completeTopUp(topUp.paymentUrl);
      sendPage(
        response,
        200,
        payPage(
          'Top-up paid',
          `<p role="status">${escapeHtml(amount)} credited. Wallet balance: <strong>${escapeHtml(kwd.normalize(balance))} KWD</strong>.</p>`,
        ),
      );
    } catch (error) {
      if (error instanceof RangeError) {
        sendPage(
          response,
          400,
          payPage('Payment refused', `<p role="alert">${escapeHtml(error.message)}</p>`),
        );
        return;
      }
      if (!(error instanceof TopUpLinkError)) throw error;
      const status = { unknown: 404, used: 409, expired: 410 }[error.problem];
      const title = {
        unknown: 'Unknown payment link',
        used: 'Already paid',
        expired: 'Payment link expired',
      }[error.problem];
      sendPage(
        response,
        status,
        payPage(title, `<p role="alert">${escapeHtml(title)}: nothing was charged.</p>`),
      );
    }
    return;
  }
  const state =
    topUp.paidAt !== undefined
      ? `<p role="status">Paid at ${escapeHtml(topUp.paidAt)}.</p>`
      : `<form method="post"><button type="submit" class="primary">Pay ${escapeHtml(amount)}</button></form>`;
  sendPage(
    response,
    200,
    payPage(
      `Top-up of ${amount}`,
      `<dl><dt>Amount</dt><dd>${escapeHtml(amount)}</dd><dt>Link valid until</dt><dd>${escapeHtml(topUp.expiresAt)}</dd></dl>${state}<p class="note">A sandbox payment: no card, no money moves.</p>`,
    ),
  );
}
