/** `startSandbox`: the mock over HTTP with control endpoints, dashboard and courier (docs/sandbox.md). */
import { createServer, type RequestListener, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  answerBadTarget,
  answerFailure,
  closeServer,
  listenOn,
  requestTarget,
} from 'delivery-task-sdk/internal';
import type { MockDeliveryService } from 'delivery-task-sdk/testing';
import { createMockDeliveryService, mockRequestListener, observersOf } from 'delivery-task-sdk/testing';
import { type AutoAdvance, startAutoAdvance } from './auto-advance.js';
import { answerControlRequest, CONTROL_PATH, isControlPath } from './control.js';
import { SandboxEvents } from './events.js';
import { type GuardRefusal, SandboxGuard } from './guard.js';
import { answerAfterBody, answerConnect } from './http.js';
import { readSandboxOptions, type SandboxOptions } from './options.js';
import {
  answerDashboardRequest,
  answerPayRequest,
  isDashboardPath,
  isPayPath,
  loadDashboard,
} from './pages.js';

/** The port `delivery-task sandbox` listens on by default. */
export const SANDBOX_DEFAULT_PORT = 4010;

export { SANDBOX_RECORD_LIMIT, type SandboxOptions } from './options.js';

/** A running sandbox. */
export interface Sandbox {
  /** Base URL of the service: `http://<host>:<port>` (`<baseUrl>/rest` is served too). */
  readonly baseUrl: string;
  /** Base URL of the control endpoints: `<baseUrl>/_sandbox`. */
  readonly controlUrl: string;
  /** The dashboard: `<baseUrl>/` (docs/sandbox.md). */
  readonly dashboardUrl: string;
  /** The API key the sandbox accepts (not enumerable: kept out of logs of the object). */
  readonly apiKey: string;
  /** The seller id the sandbox accepts. */
  readonly sellerId: string;
  /** The mock behind it, for Node tests that share its process. */
  readonly mock: MockDeliveryService;
  /** Stops the courier, pending delays and webhook POSTs, the listener and every connection. Idempotent. */
  close(): Promise<void>;
}

/** Answers a refused request: JSON `{ message, code }` (its body discarded by the caller). */
function refuse(response: ServerResponse, refusal: GuardRefusal): void {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  if (refusal.status === 401) headers['www-authenticate'] = 'Bearer realm="delivery-task sandbox"';
  response
    .writeHead(refusal.status, headers)
    .end(JSON.stringify({ message: refusal.message, code: refusal.code }));
}

/**
 * Starts a sandbox: the mock on `host`:`port`, control endpoints under `/_sandbox/`, the dashboard at `/`,
 * payment pages at `/pay/<token>`, and the courier. Node.js only (docs/sandbox.md).
 * @throws {ConfigurationError} for an unknown or invalid option, before a port is taken and without making a
 * throwaway mock: `option` its path (`port`, `account.type`, `tasks.0.status`), the message `Invalid <path>:
 * expected <what>, got <value>` (`controlToken` shown only by its length), `host` beyond loopback without
 * `controlToken`; the server's `error` (e.g. `EADDRINUSE`) when it cannot listen.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const {
    host,
    port,
    autoAdvanceMs,
    maxBodyBytes,
    controlToken,
    maxEventClients,
    maxEventBufferedBytes,
    allowedHosts,
    mock: mockOptions,
  } = readSandboxOptions(options);

  let serve: RequestListener = (_request, response) => {
    response.writeHead(503).end();
  };
  const server = createServer((request, response) => serve(request, response));
  server.on('connect', (_request, socket: Duplex) => answerConnect(socket));
  const baseUrl = await listenOn(server, host, port);
  let mock: MockDeliveryService;
  try {
    mock = createMockDeliveryService({ ...mockOptions, baseUrl });
  } catch (error) {
    await closeServer(server);
    throw error;
  }
  const observers = observersOf(mock);
  if (!observers) throw new Error('the sandbox needs a mock made by createMockDeliveryService');
  const events = new SandboxEvents(mock, observers, {
    ...(maxEventClients === undefined ? {} : { maxClients: maxEventClients }),
    ...(maxEventBufferedBytes === undefined ? {} : { maxBufferedBytes: maxEventBufferedBytes }),
  });
  const guard = new SandboxGuard(
    host,
    new URL(baseUrl).port === '' ? 80 : Number(new URL(baseUrl).port),
    controlToken,
    allowedHosts,
  );
  const assets = loadDashboard();
  const views = {
    observers,
    get webhookUrl() {
      return mock.webhookUrl;
    },
  };
  const service = mockRequestListener(mock, maxBodyBytes);
  const route: RequestListener = (request, response) => {
    const after = (answer: () => void) => answerAfterBody(request, response, answer, maxBodyBytes);
    const url = requestTarget(request.url, baseUrl);
    if (url === undefined) {
      after(() => answerBadTarget(response));
      return;
    }
    const { pathname } = url;
    const foreign = guard.checkHost(request);
    if (foreign) {
      after(() => refuse(response, foreign));
      return;
    }
    if (isControlPath(pathname)) {
      const refusal = guard.checkOrigin(request) ?? guard.checkToken(request);
      if (refusal) after(() => refuse(response, refusal));
      else if (pathname === `${CONTROL_PATH}/events` && request.method === 'GET')
        events.open(request, response);
      else
        void answerControlRequest(mock, request, response, views).catch((error) =>
          answerFailure(response, error),
        );
    } else if (isDashboardPath(pathname)) {
      after(() => answerDashboardRequest(assets, request, response, pathname));
    } else if (isPayPath(pathname)) {
      const refusal = request.method === 'POST' ? guard.checkOrigin(request) : undefined;
      const pay = () =>
        void answerPayRequest(mock, observers, request, response, pathname).catch((error) =>
          answerFailure(response, error),
        );
      if (refusal) after(() => refuse(response, refusal));
      else if (request.method === 'POST')
        pay(); // reads its form itself
      else after(pay);
    } else {
      response.once('close', () => events.requestLogged());
      service(request, response);
    }
  };
  // The one guard at the top: whatever a request holds, no exception leaves the listener.
  serve = (request, response) => {
    try {
      route(request, response);
    } catch (error) {
      answerFailure(response, error);
    }
  };
  const courier: AutoAdvance | undefined =
    autoAdvanceMs === undefined ? undefined : startAutoAdvance(mock, autoAdvanceMs);
  let closing: Promise<void> | undefined;
  const sandbox: Sandbox = {
    baseUrl,
    controlUrl: `${baseUrl}${CONTROL_PATH}`,
    dashboardUrl: `${baseUrl}/`,
    apiKey: mock.apiKey,
    sellerId: mock.sellerId,
    mock,
    close() {
      closing ??= (async () => {
        const stopped = courier?.stop();
        events.close();
        mock.close();
        await stopped;
        await closeServer(server);
      })();
      return closing;
    },
  };
  Object.defineProperty(sandbox, 'apiKey', { enumerable: false });
  return sandbox;
}
