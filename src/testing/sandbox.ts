/**
 * `startSandbox`: the stateful mock served over real HTTP with the `/_sandbox/` control endpoints, for
 * integration tests in any language (README "CLI"). `delivery-task sandbox` is a thin command
 * over it.
 *
 * ```ts
 * import { startSandbox } from 'delivery-task-sdk/testing';
 * const sandbox = await startSandbox({ port: 0, autoAdvanceMs: 1000 });
 * // point your app at sandbox.baseUrl with sandbox.apiKey and sandbox.sellerId …
 * await sandbox.close();
 * ```
 * @module
 */
import { createServer, type RequestListener } from 'node:http';
import { type AutoAdvance, checkAutoAdvanceMs, startAutoAdvance } from './auto-advance.js';
import { closeServer, DEFAULT_MAX_BODY_BYTES, listenOn, mockRequestListener } from './http-server.js';
import { answerControlRequest, CONTROL_PATH, isControlPath } from './sandbox-control.js';
import { createMockDeliveryService } from './service.js';
import type { MockDeliveryService, MockDeliveryServiceOptions } from './types.js';

/** The port `delivery-task sandbox` listens on by default. */
export const SANDBOX_DEFAULT_PORT = 4010;

/** How many recorded requests and webhook deliveries a sandbox keeps by default (the most recent). */
export const SANDBOX_RECORD_LIMIT = 1000;

/**
 * Options of {@link startSandbox}: where to listen, the courier, and every option of the mock but
 * `baseUrl` (the sandbox's own address is the mock's base URL, so payment and tracking links point at it).
 */
export interface SandboxOptions extends Omit<MockDeliveryServiceOptions, 'baseUrl'> {
  /** Interface to listen on. Default `'127.0.0.1'` (loopback only: the control endpoints need no credentials). */
  host?: string;
  /** Port, 0…65535; 0 picks a free one. Default 0 (the command's default is {@link SANDBOX_DEFAULT_PORT}). */
  port?: number;
  /**
   * Moves every open task one step along the delivery path every `autoAdvanceMs` ms, like a courier,
   * until it is delivered (bounds in `auto-advance.ts`: one step at a time, at most 100 tasks a step).
   * An integer from 10 to 86 400 000. Default: off (tasks move only by `POST /_sandbox/tasks/{id}/advance`).
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
  /** The API key the sandbox accepts (not enumerable: kept out of logs of the object). */
  readonly apiKey: string;
  /** The seller id the sandbox accepts. */
  readonly sellerId: string;
  /** The mock behind it, for Node tests that share its process. */
  readonly mock: MockDeliveryService;
  /**
   * Stops the courier, ends pending delays and webhook POSTs, stops listening and ends every open
   * connection. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Starts a sandbox: the mock served on `host`:`port`, the control endpoints beside it under
 * `/_sandbox/`, and (with `autoAdvanceMs`) the courier. Node.js only.
 * @throws {TypeError} / {RangeError} for invalid options, naming the option (never echoing the API key);
 * the server's `error` (e.g. `EADDRINUSE`) when it cannot listen.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const { host = '127.0.0.1', port = 0, autoAdvanceMs, maxBodyBytes = DEFAULT_MAX_BODY_BYTES, ...rest } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new RangeError(`port must be an integer from 0 to 65535, got ${String(port)}`);
  }
  if (typeof host !== 'string' || host === '') throw new TypeError('host must be a non-empty string');
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
  const baseUrl = await listenOn(server, host, port);
  let mock: MockDeliveryService;
  try {
    mock = createMockDeliveryService({ ...mockOptions, baseUrl });
  } catch (error) {
    await closeServer(server);
    throw error;
  }
  const service = mockRequestListener(mock, maxBodyBytes);
  serve = (request, response) => {
    const { pathname } = new URL(request.url ?? '/', baseUrl);
    if (isControlPath(pathname)) void answerControlRequest(mock, request, response);
    else service(request, response);
  };
  const courier: AutoAdvance | undefined =
    autoAdvanceMs === undefined ? undefined : startAutoAdvance(mock, autoAdvanceMs);
  let closing: Promise<void> | undefined;
  const sandbox: Sandbox = {
    baseUrl,
    controlUrl: `${baseUrl}${CONTROL_PATH}`,
    apiKey: mock.apiKey,
    sellerId: mock.sellerId,
    mock,
    close() {
      closing ??= (async () => {
        const stopped = courier?.stop();
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
