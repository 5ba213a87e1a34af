/** `startSandbox`: the mock over HTTP with control endpoints, dashboard and courier (docs/sandbox.md). */
import { createServer, type RequestListener, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  answerBadTarget,
  answerFailure,
  checkAllowedHosts,
  closeServer,
  DEFAULT_MAX_BODY_BYTES,
  listenOn,
  requestTarget,
} from 'delivery-task-sdk/internal';
import type { MockDeliveryService, MockDeliveryServiceOptions } from 'delivery-task-sdk/testing';
import { createMockDeliveryService, mockRequestListener, observersOf } from 'delivery-task-sdk/testing';
import { type AutoAdvance, checkAutoAdvanceMs, startAutoAdvance } from './auto-advance.js';
import { answerControlRequest, CONTROL_PATH, isControlPath } from './control.js';
import { SandboxEvents } from './events.js';
import { checkControlToken, type GuardRefusal, isLoopbackHost, SandboxGuard } from './guard.js';
import { answerAfterBody, answerConnect } from './http.js';
import {
  answerDashboardRequest,
  answerPayRequest,
  isDashboardPath,
  isPayPath,
  loadDashboard,
} from './pages.js';

/** The port `delivery-task sandbox` listens on by default. */
export const SANDBOX_DEFAULT_PORT = 4010;

/** How many recorded requests and webhook deliveries a sandbox keeps by default (the most recent). */
export const SANDBOX_RECORD_LIMIT = 1000;

/** Options of {@link startSandbox}: every option of the mock but `baseUrl` (the sandbox's own address). */
export interface SandboxOptions extends Omit<MockDeliveryServiceOptions, 'baseUrl'> {
  /** Interface to listen on. Default `'127.0.0.1'`; any non-loopback host needs {@link controlToken}. */
  host?: string;
  /**
   * Secret every control request (`/_sandbox/…`, dashboard included) sends as
   * `Authorization: Bearer <token>`,
   * else 401 `CONTROL_TOKEN_REQUIRED` (docs/sandbox.md, "Exposure"). 16 to 1024 visible ASCII characters;
   * required beyond loopback. Default: none. Never printed nor logged.
   */
  controlToken?: string;
  /**
   * Host names (no port) answered besides loopback and {@link host}, e.g. `['sandbox']`; `'*'` answers any.
   * Each opens every route to pages served under it (the control routes still need {@link controlToken}
   * when one is set). Any other `Host` gets 403 `FOREIGN_HOST` on every route, with or without a token
   * (docs/sandbox.md, "Exposure"). Default: none. `--allow-host` of the command.
   */
  allowedHosts?: readonly string[];
  /** Most dashboard event streams (`GET /_sandbox/events`) open at once; one more gets 503. Default 100. */
  maxEventClients?: number;
  /** Most bytes queued on one event stream for its reader; beyond, the stream is closed. Default 1 MiB. */
  maxEventBufferedBytes?: number;
  /** Port, 0…65535; 0 picks a free one. Default 0 (the command's default is {@link SANDBOX_DEFAULT_PORT}). */
  port?: number;
  /**
   * Courier: moves every open task one step every `autoAdvanceMs` ms (at most 100 tasks a step;
   * docs/sandbox.md).
   * An integer from 10 to 86 400 000. Default: off (tasks move by `POST /_sandbox/tasks/{id}/advance`).
   */
  autoAdvanceMs?: number;
  /** Largest body of a request to the service's routes, bytes (413 beyond). Default 1 MiB. */
  maxBodyBytes?: number;
  /** Recorded requests and webhook deliveries kept, the most recent. Default 1000. */
  recordLimit?: number;
}

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
 * @throws {TypeError} / {RangeError} for an invalid option, naming it (never echoing a secret), or a `host`
 * beyond loopback without `controlToken`; the server's `error` (e.g. `EADDRINUSE`) when it cannot listen.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const {
    host = '127.0.0.1',
    port = 0,
    autoAdvanceMs,
    maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
    controlToken,
    maxEventClients,
    maxEventBufferedBytes,
    allowedHosts = [],
    ...rest
  } = options;
  checkAllowedHosts(allowedHosts);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new RangeError(`port must be an integer from 0 to 65535, got ${String(port)}`);
  }
  if (typeof host !== 'string' || host === '') throw new TypeError('host must be a non-empty string');
  for (const [name, value] of [
    ['maxEventClients', maxEventClients],
    ['maxEventBufferedBytes', maxEventBufferedBytes],
  ] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) {
      throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
    }
  }
  if (controlToken !== undefined) checkControlToken(controlToken);
  else if (!isLoopbackHost(host)) {
    throw new TypeError(
      `host ${JSON.stringify(host)} is not a loopback address: the control endpoints would be open to every machine that reaches it; give a controlToken (--control-token) to listen there`,
    );
  }
  if (autoAdvanceMs !== undefined) checkAutoAdvanceMs(autoAdvanceMs);
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new RangeError(`maxBodyBytes must be a positive integer, got ${String(maxBodyBytes)}`);
  }
  const mockOptions: MockDeliveryServiceOptions = { recordLimit: SANDBOX_RECORD_LIMIT, ...rest };
  // Check the mock's options before taking the port; the served mock is made once the address is known.
  createMockDeliveryService(mockOptions);

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
