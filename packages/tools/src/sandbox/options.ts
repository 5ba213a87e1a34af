/**
 * The options of `startSandbox` (docs/sandbox.md): their type, their shape as a schema read by the SDK's
 * `readOptions`, and their reading, the mock's options checked by `checkMockOptions` without making a mock.
 */
import {
  accepted,
  allowedHostsOption,
  DEFAULT_MAX_BODY_BYTES,
  hostOption,
  invalidOption,
  optionsObject,
  readOptions,
  upTo,
} from 'delivery-task-sdk/internal';
import { checkMockOptions, type MockDeliveryServiceOptions } from 'delivery-task-sdk/testing';
import * as z from 'zod/mini';
import { MAX_AUTO_ADVANCE_MS, MIN_AUTO_ADVANCE_MS } from './auto-advance.js';
import {
  isControlToken,
  isLoopbackHost,
  MAX_CONTROL_TOKEN_LENGTH,
  MIN_CONTROL_TOKEN_LENGTH,
} from './guard.js';

/** How many recorded requests and webhook deliveries a sandbox keeps by default (the most recent). */
export const SANDBOX_RECORD_LIMIT = 1000;

/** Options of `startSandbox`: every option of the mock but `baseUrl` (the sandbox's own address). */
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
  /** Port, 0…65535; 0 picks a free one. Default 0 (the command's default is `SANDBOX_DEFAULT_PORT`). */
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

/** The options of the mock the sandbox takes, each read by `checkMockOptions` (all but `baseUrl`). */
const MOCK_OPTIONS = {
  apiKey: true,
  sellerId: true,
  account: true,
  branches: true,
  pricing: true,
  origin: true,
  webhookUrl: true,
  createStatus: true,
  now: true,
  tasks: true,
  recordLimit: true,
  taskLimit: true,
} as const satisfies Record<keyof Omit<MockDeliveryServiceOptions, 'baseUrl'>, true>;

/** The mock's options, known to the schema and left to `checkMockOptions`. */
const mockOptions = Object.fromEntries(
  Object.keys(MOCK_OPTIONS).map((name) => [name, z.optional(z.unknown())]),
) as Record<keyof typeof MOCK_OPTIONS, z.ZodMiniOptional<z.ZodMiniUnknown>>;

/** The shape of {@link SandboxOptions}: the sandbox's own options read, their defaults applied. */
const SandboxOptionsSchema = optionsObject(
  {
    ...mockOptions,
    host: hostOption,
    controlToken: z.optional(
      accepted<string>(
        isControlToken,
        `${MIN_CONTROL_TOKEN_LENGTH} to ${MAX_CONTROL_TOKEN_LENGTH} visible ASCII characters (no spaces)`,
      ),
    ),
    allowedHosts: allowedHostsOption,
    maxEventClients: upTo(1),
    maxEventBufferedBytes: upTo(1),
    port: upTo(0, 65_535),
    autoAdvanceMs: upTo(MIN_AUTO_ADVANCE_MS, MAX_AUTO_ADVANCE_MS),
    maxBodyBytes: upTo(1),
  },
  { host: '127.0.0.1', port: 0, maxBodyBytes: DEFAULT_MAX_BODY_BYTES, allowedHosts: [] },
);

/** {@link SandboxOptions} as read: the sandbox's own, defaults applied, and the mock's, checked. */
export type ReadSandboxOptions = Omit<z.output<typeof SandboxOptionsSchema>, keyof typeof MOCK_OPTIONS> & {
  /** The mock's options, {@link SANDBOX_RECORD_LIMIT} records unless given; `baseUrl` is the sandbox's. */
  readonly mock: MockDeliveryServiceOptions;
};

/**
 * `options` read: the sandbox's own by its schema, then the rule that a host beyond loopback needs a
 * `controlToken`, then the mock's by `checkMockOptions` (no mock is made).
 * @throws {ConfigurationError} for the first unknown or invalid option, `option` its path (`port`,
 * `allowedHosts.1`, `account.type`, `tasks.0.status`), the message `Invalid <path>: expected <what>, got
 * <value>`; `controlToken` shown only by its kind and length; `host` for a non-loopback host without a
 * `controlToken`.
 */
export function readSandboxOptions(options: SandboxOptions): ReadSandboxOptions {
  const read = readOptions(SandboxOptionsSchema, options);
  if (read.controlToken === undefined && !isLoopbackHost(read.host)) {
    throw invalidOption(
      'host',
      'a loopback address (127.0.0.1, localhost, ::1), or a controlToken to guard the control endpoints beyond it',
      read.host,
    );
  }
  const mock: Record<string, unknown> = { recordLimit: SANDBOX_RECORD_LIMIT };
  for (const name of Object.keys(MOCK_OPTIONS) as (keyof typeof MOCK_OPTIONS)[]) {
    if (name in read) mock[name] = read[name];
  }
  // The mock's options as given, read by checkMockOptions on the next line.
  const mockOptions = mock as MockDeliveryServiceOptions;
  checkMockOptions(mockOptions);
  return { ...read, mock: mockOptions };
}
