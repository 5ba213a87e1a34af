/** `delivery-task mcp` (README "Agents (MCP)"). */
import { constants } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import type { ClientOptions, DeliveryStore, Logger } from 'delivery-task-sdk';
import { ConfigurationError, kwd } from 'delivery-task-sdk';
import { redisStore } from 'delivery-task-sdk/redis';
import { fileStore } from '../mcp/file-store.js';
import { DEFAULT_DAILY_CAP_KWD, DEFAULT_MAX_FEE_KWD, type McpConfirmation } from '../mcp/policy.js';
import type { CliCommand, CliIo } from './io.js';
import { clientLine, defaultStoreFile, startLines } from './mcp-start.js';
import { CLIENT_ENV, clientFromEnv } from './operator/client-from-env.js';

/**
 * The policy a command line asks for, as `createMcpServer` takes it (`Infinity`: lifted by `--no-limits`).
 */
type McpPolicyFlags = {
  allow: Array<'read' | 'create' | 'topUp'>;
  maxFeeKwd?: string | number;
  dailyCapKwd?: string | number;
  confirmation?: McpConfirmation;
  walletFloorKwd?: string | null;
  quoteMaxAgeSeconds?: number;
  quoteMarginPercent?: number;
  revealCustomerPhones?: boolean;
};

const USAGE = `Usage: delivery-task mcp [options]

Serves an MCP server on stdio (for Claude Desktop, Cursor, VS Code and other agents): tools to read
tasks, quote and book deliveries and check the wallet, bounded by a money policy. Read-only unless
--allow says otherwise. Credentials: ${CLIENT_ENV.apiKey}, ${CLIENT_ENV.sellerId}, ${CLIENT_ENV.baseUrl}.

Options:
  --allow LIST              also allow: create (book deliveries), top-up (request top-up links), comma-separated
  --max-fee-kwd N           highest fee of one delivery, KWD (default ${DEFAULT_MAX_FEE_KWD})
  --daily-cap-kwd N         most fees booked per day (Kuwait time) for this seller, KWD (default ${DEFAULT_DAILY_CAP_KWD})
  --no-limits               no fee limit and no daily cap (a warning says so at start); not with the two above
  --wallet-floor-kwd N|off  least balance a booking may leave, KWD (default 0; off for invoice accounts)
  --confirmation MODE       who confirms a booking: elicitation-or-token (default: the person when the client
                            can ask them, else the agent alone, repeating its call with a token) or elicitation
                            (the person only: a client that cannot ask them books nothing)
  --quote-max-age-seconds N oldest quote a booking may use (default 600)
  --quote-margin-percent N  how far a re-quoted fee may exceed the quote (default 0)
  --reveal-phones           show customer phone numbers in full (default: masked)
  --store-file PATH         where the day's spending and the bookings in progress are kept (default: your state
                            folder, e.g. ~/.local/state/delivery-task/mcp-store.json); kept across restarts
  --redis URL               count spending and bookings in Redis (redis://…) instead, shared by every process
                            using it; needs ioredis or redis installed
  -h, --help                this help

With --allow create, bookings are always bounded by a fee limit and a daily cap (the defaults above unless
set, or none with --no-limits), the wallet floor and a confirmation; the start line on stderr says which,
and where spending is counted (the store file, or Redis). The tools, the rules and a client
configuration: docs/mcp.md in the package.
`;

/** A bad flag: one line on stderr, exit code 2. */
class UsageError extends Error {
  override readonly name = 'UsageError';
}

const OPTIONS = {
  allow: { type: 'string' },
  'max-fee-kwd': { type: 'string' },
  'daily-cap-kwd': { type: 'string' },
  'no-limits': { type: 'boolean' },
  confirmation: { type: 'string' },
  'store-file': { type: 'string' },
  'wallet-floor-kwd': { type: 'string' },
  'quote-max-age-seconds': { type: 'string' },
  'quote-margin-percent': { type: 'string' },
  'reveal-phones': { type: 'boolean' },
  redis: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const PERMISSION_WORDS: Readonly<Record<string, 'read' | 'create' | 'topUp'>> = {
  read: 'read',
  create: 'create',
  'top-up': 'topUp',
};

function amount(flag: string, text: string): string {
  if (!kwd.isValid(text) || kwd.toFils(text) < 0) {
    throw new UsageError(
      `--${flag} must be a KWD amount ≥ 0 with at most 3 decimals, got ${JSON.stringify(text)}`,
    );
  }
  return kwd.normalize(text);
}

function number(flag: string, text: string, min: number, max: number, integer: boolean): number {
  const value = (integer ? /^\d+$/ : /^\d+(\.\d+)?$/).test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= max)) {
    throw new UsageError(
      `--${flag} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${JSON.stringify(text)}`,
    );
  }
  return value;
}

/** What a command line asks for: the policy, and where spending is counted (Redis, or a file). */
export interface McpFlags {
  policy: McpPolicyFlags;
  redisUrl?: string;
  storeFile?: string;
}

/** The policy and store of a command line; `undefined` for `--help`. */
export function mcpFlagsOf(argv: readonly string[]): McpFlags | undefined {
  let values: ReturnType<
    typeof parseArgs<{ options: typeof OPTIONS; strict: true; allowPositionals: false }>
  >['values'];
  try {
    ({ values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError(
      (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'bad arguments',
    );
  }
  if (values.help) return undefined;
  const allow = new Set<'read' | 'create' | 'topUp'>(['read']);
  for (const word of (values.allow ?? '').split(',').map((each) => each.trim())) {
    if (word === '') continue;
    const permission = PERMISSION_WORDS[word];
    if (permission === undefined) {
      throw new UsageError(
        `--allow takes create, top-up (read is always allowed), got ${JSON.stringify(word)}`,
      );
    }
    allow.add(permission);
  }
  const policy: McpPolicyFlags = { allow: [...allow] };
  if (values['no-limits']) {
    const set = ['max-fee-kwd', 'daily-cap-kwd'].find((flag) => values[flag as 'max-fee-kwd'] !== undefined);
    if (set !== undefined) throw new UsageError(`--no-limits lifts both limits: give it without --${set}`);
    policy.maxFeeKwd = Number.POSITIVE_INFINITY;
    policy.dailyCapKwd = Number.POSITIVE_INFINITY;
  }
  if (values['max-fee-kwd'] !== undefined) policy.maxFeeKwd = amount('max-fee-kwd', values['max-fee-kwd']);
  if (values['daily-cap-kwd'] !== undefined)
    policy.dailyCapKwd = amount('daily-cap-kwd', values['daily-cap-kwd']);
  const confirmation = values.confirmation;
  if (confirmation !== undefined) {
    if (confirmation !== 'elicitation' && confirmation !== 'elicitation-or-token') {
      throw new UsageError(
        `--confirmation takes elicitation or elicitation-or-token, got ${JSON.stringify(confirmation)}`,
      );
    }
    policy.confirmation = confirmation;
  }
  const floor = values['wallet-floor-kwd'];
  if (floor !== undefined) policy.walletFloorKwd = floor === 'off' ? null : amount('wallet-floor-kwd', floor);
  const age = values['quote-max-age-seconds'];
  if (age !== undefined) policy.quoteMaxAgeSeconds = number('quote-max-age-seconds', age, 1, 86_400, true);
  const margin = values['quote-margin-percent'];
  if (margin !== undefined) policy.quoteMarginPercent = number('quote-margin-percent', margin, 0, 100, false);
  if (values['reveal-phones']) policy.revealCustomerPhones = true;
  const redisUrl = values.redis;
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new UsageError('--redis must be a redis:// or rediss:// URL');
  }
  const storeFile = values['store-file'];
  if (storeFile !== undefined && redisUrl !== undefined) {
    throw new UsageError('--store-file and --redis name two places to count spending: give one');
  }
  if (storeFile === '') throw new UsageError('--store-file needs a path');
  return {
    policy,
    ...(redisUrl === undefined ? {} : { redisUrl }),
    ...(storeFile === undefined ? {} : { storeFile }),
  };
}

/** The SDK's log lines on stderr, without the request and response bodies the debug level adds. */
function bodilessLogger(io: CliIo): Logger {
  const write = (message: string, fields?: Record<string, unknown>) => {
    const { body: _body, ...rest } = fields ?? {};
    io.stderr(`${message}${Object.keys(rest).length === 0 ? '' : ` ${JSON.stringify(rest)}`}\n`);
  };
  return { debug: write, info: write, warn: write, error: write };
}

/** A Redis connection and its store; `close` ends the connection. */
interface RedisConnection {
  readonly store: DeliveryStore;
  close(): Promise<void>;
}

/** Connects to `url` with ioredis, or node-redis when ioredis is not installed. */
async function connectRedis(url: string): Promise<RedisConnection> {
  const ioredis = await import('ioredis').catch(() => undefined);
  if (ioredis !== undefined) {
    const Redis = ioredis.default;
    const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
    await client.connect();
    return {
      store: redisStore(client),
      close: async () => void (await client.quit().catch(() => undefined)),
    };
  }
  const nodeRedis = await import('redis').catch(() => undefined);
  if (nodeRedis === undefined)
    throw new UsageError('--redis needs ioredis or redis installed (npm install ioredis)');
  const client = nodeRedis.createClient({ url, disableOfflineQueue: true });
  await client.connect();
  return { store: redisStore(client), close: async () => void (await client.quit().catch(() => undefined)) };
}

/** Runs `delivery-task mcp [options]` until the client closes stdin or the process is asked to stop. */
export const mcpCommand: CliCommand = async (argv, io) => {
  const fail = (message: string, code: number) => {
    io.stderr(`delivery-task mcp: ${message}\n`);
    return code;
  };
  let flags: ReturnType<typeof mcpFlagsOf>;
  try {
    flags = mcpFlagsOf(argv);
  } catch (error) {
    return fail(`${(error as Error).message} (see delivery-task mcp --help)`, 2);
  }
  if (flags === undefined) {
    io.stdout(USAGE);
    return 0;
  }
  let mcp: typeof import('../mcp/stdio.js');
  try {
    mcp = await import('../mcp/stdio.js');
  } catch (error) {
    const missing = /@modelcontextprotocol\/sdk/.test(String((error as Error)?.message));
    return missing
      ? fail(
          'needs @modelcontextprotocol/sdk, an optional peer dependency: npm install @modelcontextprotocol/sdk',
          1,
        )
      : fail(`cannot load the MCP server: ${String(error)}`, 1);
  }
  let redis: RedisConnection | undefined;
  try {
    if (flags.redisUrl !== undefined) {
      try {
        redis = await connectRedis(flags.redisUrl);
      } catch (error) {
        if (error instanceof UsageError) return fail(error.message, 2);
        return fail(`cannot connect to Redis (${(error as Error).name}: ${(error as Error).message})`, 1);
      }
    }
    const overrides: Pick<ClientOptions, 'store' | 'logger'> = { logger: bodilessLogger(io) };
    if (redis !== undefined) overrides.store = redis.store;
    const {
      allow,
      maxFeeKwd,
      dailyCapKwd,
      walletFloorKwd,
      confirmation = 'elicitation-or-token',
    } = flags.policy;
    // Spending and bookings in progress outlive the process: in Redis, else in a file (docs/mcp.md, "Run
    // it").
    let store = redis?.store;
    let storeFile: string | undefined;
    if (store === undefined && allow.includes('create')) {
      storeFile = flags.storeFile ?? defaultStoreFile(io.env);
      store = fileStore(storeFile);
      try {
        await mkdir(dirname(storeFile), { recursive: true, mode: 0o700 });
        await access(dirname(storeFile), constants.W_OK);
        await store.get('');
      } catch (error) {
        const why = (error as { code?: unknown }).code ?? (error as Error).message;
        return fail(
          `cannot count spending in ${storeFile} (${String(why)}): give --store-file PATH or --redis URL`,
          2,
        );
      }
    }
    const policy = { ...flags.policy, ...(store === undefined ? {} : { store }) };
    const client = clientFromEnv(io, overrides);
    const shown = (value: string | number | undefined, fallback: string) =>
      value === Number.POSITIVE_INFINITY ? undefined : kwd.normalize(value ?? fallback);
    for (const line of startLines({
      allow: allow.map((each) => (each === 'topUp' ? 'top-up' : each)),
      maxFeeKwd: shown(maxFeeKwd, DEFAULT_MAX_FEE_KWD),
      dailyCapKwd: shown(dailyCapKwd, DEFAULT_DAILY_CAP_KWD),
      set: { maxFee: typeof maxFeeKwd === 'string', dailyCap: typeof dailyCapKwd === 'string' },
      walletFloorKwd: walletFloorKwd === undefined ? '0' : walletFloorKwd,
      confirmation,
      storeFile,
    })) {
      io.stderr(line);
    }
    const onInitialized = allow.includes('create')
      ? (connected: { name: string; elicitation: boolean }) => io.stderr(clientLine(connected, confirmation))
      : undefined;
    await mcp.serveStdio(client, policy, {
      ...(io.streams ?? {}),
      signal: io.signal,
      ...(onInitialized === undefined ? {} : { onInitialized }),
    });
    return 0;
  } catch (error) {
    if (error instanceof ConfigurationError) return fail(`${error.name}: ${error.message}`, 2);
    return fail(
      `unexpected error: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
      1,
    );
  } finally {
    await redis?.close();
  }
};
