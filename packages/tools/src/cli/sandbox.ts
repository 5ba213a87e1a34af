/** `delivery-task sandbox` (README "CLI"). */
import { readFile, stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ConfigurationError, kwd } from 'delivery-task-sdk';
import { isAllowedHost } from 'delivery-task-sdk/internal';
import { MAX_AUTO_ADVANCE_MS, MIN_AUTO_ADVANCE_MS } from '../sandbox/auto-advance.js';
import { CONTROL_ENDPOINTS, endpointLines } from '../sandbox/endpoints.js';
import { isControlToken, isLoopbackHost, MIN_CONTROL_TOKEN_LENGTH } from '../sandbox/guard.js';
import { SANDBOX_DEFAULT_PORT, type SandboxOptions, startSandbox } from '../sandbox/sandbox.js';
import { parseSandboxSeed } from '../sandbox/seed.js';
import type { CliCommand, CliIo } from './io.js';

/**
 * The environment variable that may hold the control token instead of `--control-token` (kept out of `ps`).
 */
export const CONTROL_TOKEN_ENV = 'DELIVERY_SANDBOX_CONTROL_TOKEN';

/** Largest seed file read, bytes (10 MiB). */
export const MAX_SEED_FILE_BYTES = 10 * 1024 * 1024;

const USAGE = `Usage: delivery-task sandbox [options]

Serves a stateful mock of the Delivery Task Service over HTTP, with control endpoints under /_sandbox/
and a dashboard at / (tasks, webhook deliveries, wallet, faults, requests).

Options:
  --port <n>            port to listen on (default ${SANDBOX_DEFAULT_PORT}; 0 picks a free one)
  --host <host>         interface to listen on (default 127.0.0.1); beyond loopback needs --control-token
  --control-token <t>   secret every control request must send as "Authorization: Bearer <t>"
                        (${MIN_CONTROL_TOKEN_LENGTH}+ visible characters; or set ${CONTROL_TOKEN_ENV})
  --allow-host <name>   also answer requests naming this Host (repeatable; "*" for any): otherwise only
                        localhost, 127.0.0.1, [::1] and --host are answered, control token or not
  --account <kind>      wallet or invoice (default wallet)
  --balance <KWD>       opening wallet balance, at most 3 decimals (default 100)
  --webhook-url <url>   POST the webhook form of each task change to this http(s) URL (change it while
                        running with POST /_sandbox/webhook-url, or on the dashboard's Webhooks tab)
  --auto-advance <ms>   move every open task one step per interval until delivered (${MIN_AUTO_ADVANCE_MS}…${MAX_AUTO_ADVANCE_MS})
  --seed <file>         JSON file with initial "branches" and "tasks" (restored on every reset)
  --json                print one JSON line {"baseUrl","apiKey","sellerId","controlUrl"} instead of text
  -h, --help            print this help

Control endpoints (JSON bodies; GET /_sandbox answers this list as JSON):
${CONTROL_ENDPOINTS.map((endpoint) => endpointLines(endpoint)).join('\n')}
They refuse requests from a page of another origin. Stop with Ctrl+C (SIGINT) or SIGTERM.
`;

/** A bad option or seed: reported on one line, exit code 2. */
class UsageError extends Error {
  override readonly name = 'UsageError';
}

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'control-token': { type: 'string' },
  'allow-host': { type: 'string', multiple: true },
  account: { type: 'string' },
  balance: { type: 'string' },
  'webhook-url': { type: 'string' },
  'auto-advance': { type: 'string' },
  seed: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** parseArgs' errors, rewritten as one short line. */
function usageErrorOf(error: unknown): UsageError {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const quoted = /'([^']*)'/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return new UsageError(`unknown option ${quoted ?? message}`);
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    return new UsageError(`unexpected argument ${JSON.stringify(quoted ?? message)}`);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const option = /--[\w-]+/.exec(message)?.[0];
    if (option && /ambiguous/.test(message)) {
      return new UsageError(
        `${option} needs a value (write ${option}=<value> for a value that starts with "-")`,
      );
    }
    if (option && /missing/.test(message)) return new UsageError(`${option} needs a value`);
    return new UsageError(message.split('\n')[0] ?? message);
  }
  return new UsageError(message);
}

function integerOption(text: string, option: string, min: number, max: number): number {
  const value = /^\d{1,10}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= max)) {
    throw new UsageError(`--${option} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return value;
}

function accountOption(kind: string | undefined, balance: string | undefined): SandboxOptions['account'] {
  if (kind !== undefined && kind !== 'wallet' && kind !== 'invoice') {
    throw new UsageError(`--account must be wallet or invoice, got ${JSON.stringify(kind)}`);
  }
  if (kind === 'invoice') {
    if (balance !== undefined)
      throw new UsageError('--balance applies to a wallet account, not --account invoice');
    return { type: 'invoice' };
  }
  if (balance === undefined) return undefined;
  if (!kwd.isValid(balance) || kwd.toFils(balance) < 0) {
    throw new UsageError(
      `--balance must be a KWD amount ≥ 0 with at most 3 decimals, got ${JSON.stringify(balance)}`,
    );
  }
  return { type: 'wallet', balance: kwd.normalize(balance) };
}

function webhookUrlOption(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    // Reported below.
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new UsageError(`--webhook-url must be an absolute http(s) URL, got ${JSON.stringify(text)}`);
  }
  return url.href;
}

/** Reads, parses and checks the seed file; every problem names the file and, inside it, the field. */
async function seedOption(file: string): Promise<Pick<SandboxOptions, 'branches' | 'tasks'>> {
  const problem = (text: string) => new UsageError(`--seed ${file}: ${text}`);
  let text: string;
  try {
    const { size } = await stat(file);
    if (size > MAX_SEED_FILE_BYTES) throw problem(`larger than ${MAX_SEED_FILE_BYTES} bytes`);
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as { code?: unknown }).code;
    throw problem(`cannot read the file (${typeof code === 'string' ? code : String(error)})`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw problem(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  try {
    return parseSandboxSeed(document);
  } catch (error) {
    throw problem(error instanceof Error ? error.message : String(error));
  }
}

/** The sandbox options of a command line; `undefined` for `--help`. */
async function sandboxOptionsOf(
  argv: readonly string[],
  env: CliIo['env'],
): Promise<{ options: SandboxOptions; json: boolean } | undefined> {
  let values: ReturnType<
    typeof parseArgs<{ options: typeof OPTIONS; strict: true; allowPositionals: false }>
  >['values'];
  try {
    ({ values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw usageErrorOf(error);
  }
  if (values.help) return undefined;
  const options: SandboxOptions = {
    port: values.port === undefined ? SANDBOX_DEFAULT_PORT : integerOption(values.port, 'port', 0, 65_535),
  };
  if (values.host !== undefined) {
    if (values.host.trim() === '') throw new UsageError('--host must not be empty');
    options.host = values.host;
  }
  const token = values['control-token'] ?? (env[CONTROL_TOKEN_ENV] || undefined);
  if (token !== undefined) {
    if (!isControlToken(token)) {
      const source = values['control-token'] === undefined ? CONTROL_TOKEN_ENV : '--control-token';
      throw new UsageError(
        `${source} must be ${MIN_CONTROL_TOKEN_LENGTH} or more visible ASCII characters, without spaces (the value is not shown)`,
      );
    }
    options.controlToken = token;
  } else if (!isLoopbackHost(options.host ?? '127.0.0.1')) {
    throw new UsageError(
      `--host ${options.host ?? ''} is not a loopback address: give --control-token <secret> (or ${CONTROL_TOKEN_ENV}) so that only you can use the control endpoints there`,
    );
  }
  if (values['allow-host'] !== undefined) {
    const bad = values['allow-host'].find((name) => !isAllowedHost(name));
    if (bad !== undefined) {
      throw new UsageError(
        `--allow-host: ${JSON.stringify(bad)} is not a host name without a port (or "*" for any host)`,
      );
    }
    options.allowedHosts = values['allow-host'];
  }
  const account = accountOption(values.account, values.balance);
  if (account) options.account = account;
  if (values['webhook-url'] !== undefined) options.webhookUrl = webhookUrlOption(values['webhook-url']);
  if (values['auto-advance'] !== undefined) {
    options.autoAdvanceMs = integerOption(
      values['auto-advance'],
      'auto-advance',
      MIN_AUTO_ADVANCE_MS,
      MAX_AUTO_ADVANCE_MS,
    );
  }
  if (values.seed !== undefined) Object.assign(options, await seedOption(values.seed));
  return { options, json: values.json === true };
}

/** Resolves when `signal` aborts. */
function stopRequested(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

function listenFailure(error: unknown, options: SandboxOptions, io: CliIo): number {
  const code = (error as { code?: unknown } | null)?.code;
  const where = `${options.host ?? '127.0.0.1'}:${options.port ?? SANDBOX_DEFAULT_PORT}`;
  const hint = code === 'EADDRINUSE' ? ': the port is in use (--port 0 picks a free one)' : '';
  io.stderr(
    `delivery-task sandbox: cannot listen on ${where} (${typeof code === 'string' ? code : String(error)})${hint}\n`,
  );
  return 1;
}

/** Runs `delivery-task sandbox [options]` until the process is asked to stop. */
export const sandboxCommand: CliCommand = async (argv, io) => {
  let parsed: Awaited<ReturnType<typeof sandboxOptionsOf>>;
  try {
    parsed = await sandboxOptionsOf(argv, io.env);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`delivery-task sandbox: ${message} (see delivery-task sandbox --help)\n`);
    return 2;
  }
  if (!parsed) {
    io.stdout(USAGE);
    return 0;
  }
  const { options, json } = parsed;
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  try {
    sandbox = await startSandbox(options);
  } catch (error) {
    if (error instanceof ConfigurationError) {
      io.stderr(`delivery-task sandbox: ${error.message} (see delivery-task sandbox --help)\n`);
      return 2;
    }
    return listenFailure(error, options, io);
  }
  const { baseUrl, apiKey, sellerId, controlUrl, dashboardUrl } = sandbox;
  if (!isLoopbackHost(options.host ?? '127.0.0.1')) {
    io.stderr(
      `delivery-task sandbox: warning: listening on ${options.host ?? ''}, beyond this machine: anyone who reaches the port can call the service routes with the API key printed here; the control endpoints and the dashboard's controls need the control token\n`,
    );
  }
  io.stdout(
    json
      ? `${JSON.stringify({ baseUrl, apiKey, sellerId, controlUrl, dashboardUrl })}\n`
      : `delivery-task sandbox: ${baseUrl} · API key ${apiKey} · seller id ${sellerId} · control ${controlUrl}/ · dashboard ${dashboardUrl} · Ctrl+C stops it\n`,
  );
  await stopRequested(io.signal);
  await sandbox.close();
  return 0;
};
