/** The money policy of an MCP server (README "Agents (MCP)"; `docs/mcp.md`, "The policy"). */
import { ConfigurationError, type DeliveryStore, kwd, memoryStore } from 'delivery-task-sdk';
import {
  accepted,
  clientInternalsOf,
  DEFAULT_STORE_TIMEOUT_MS,
  flag,
  hook,
  oneOf,
  optionsObject,
  readOptions,
  storeOption,
  upTo,
  withStoreDeadline,
} from 'delivery-task-sdk/internal';
import type { KwdAmount } from 'delivery-task-sdk/kwd';
import { MAX_KWD_AMOUNT } from 'delivery-task-sdk/schemas';
import * as z from 'zod/mini';

/** What an agent may be allowed: reading, booking deliveries, requesting top-up links. */
export type McpPermission = 'read' | 'create' | 'topUp';

/** Every permission, in the order of the help and the docs. */
export const MCP_PERMISSIONS: readonly McpPermission[] = ['read', 'create', 'topUp'];

/** A top-up link handed to the merchant's application ({@link McpPolicy.deliverTopUpLink}). */
export interface TopUpLinkDelivery {
  /** The payment link: for the person who pays, never for the model. */
  readonly paymentUrl: string;
  /** The amount, KWD with 3 decimals (`"10.000"`). */
  readonly amountKwd: string;
  /** When the link expires (ISO 8601), when the service says. */
  readonly expiresAt: string | undefined;
}

/**
 * Highest fee of one delivery when the policy names none, KWD (`docs/mcp.md`, "The policy"): a delivery
 * inside Kuwait is quoted at 1 to 3 KWD, so an agent never books a trip dearer than this unless told.
 */
export const DEFAULT_MAX_FEE_KWD = '5.000';

/**
 * Most fees in one day when the policy names no cap, KWD (`docs/mcp.md`, "The policy"): about ten deliveries.
 */
export const DEFAULT_DAILY_CAP_KWD = '20.000';

/**
 * How a booking is confirmed (`docs/mcp.md`, "How a booking is guarded"): `'elicitation'`, by the person
 * only (a client that cannot ask them gets every booking refused); `'elicitation-or-token'`, by the person
 * when the client can ask them, otherwise by the agent alone, repeating its call with the token the first
 * call gave it.
 */
export type McpConfirmation = 'elicitation' | 'elicitation-or-token';

/** What the agent may do and spend; default read-only. Amounts: KWD (`2.5`, `"2.500"`), compared in fils. */
export interface McpPolicy {
  /**
   * `'read'` (tasks, quotes, branches, balance), `'create'` (book deliveries; needs `'read'` for
   * `estimate_delivery`), `'topUp'` (request top-up links). Default `['read']`.
   */
  allow?: readonly McpPermission[];
  /**
   * Highest fee of one delivery, KWD, at most `MAX_KWD_AMOUNT`. Default {@link DEFAULT_MAX_FEE_KWD} (5 KWD);
   * `Infinity` lifts it.
   */
  maxFeeKwd?: KwdAmount;
  /**
   * Most fees in one day (Kuwait time, UTC+3) for this seller, KWD, at most `MAX_KWD_AMOUNT`; counted in
   * `store`, so servers sharing it share the cap. Default {@link DEFAULT_DAILY_CAP_KWD} (20 KWD); `Infinity`
   * lifts it (spending is still counted).
   */
  dailyCapKwd?: KwdAmount;
  /** Who confirms a booking: see {@link McpConfirmation}. Default `'elicitation-or-token'`. */
  confirmation?: McpConfirmation;
  /**
   * Where the day's spending and bookings in progress are counted (`redisStore` for several processes).
   * Default: one memory store per client, shared by its servers in this process.
   */
  store?: DeliveryStore;
  /** Deadline of each store call, ms; past it the booking is refused and nothing is sent. Default 1000. */
  storeTimeoutMs?: number;
  /**
   * Least wallet balance a booking may leave, KWD; a booking leaving less is refused. `null` skips the check
   * (invoice accounts). Default 0.
   */
  walletFloorKwd?: KwdAmount | null;
  /** Oldest quote (`estimateId`) a booking may use, seconds. Integer 1…86 400. Default 600 (10 minutes). */
  quoteMaxAgeSeconds?: number;
  /** How far the fee re-quoted before booking may exceed the quote, percent, 0…100. Default 0 (no rise). */
  quoteMarginPercent?: number;
  /** Show customer phone numbers in full. Default `false`: all but the last 3 digits masked. */
  revealCustomerPhones?: boolean;
  /**
   * Hands a top-up link to the merchant's application, for clients without URL elicitation (refused
   * `create_top_up_link` otherwise). The link never reaches the model.
   */
  deliverTopUpLink?: (link: TopUpLinkDelivery) => void | Promise<void>;
  /** How often a subscribed `task://{id}` is read for changes, seconds. Integer 5…3600. Default 15. */
  subscriptionPollSeconds?: number;
  /** Clock, ms since the epoch, for tests. Default `Date.now`. */
  now?: () => number;
}

/** {@link McpPolicy} checked, amounts in fils, defaults applied. */
export interface ResolvedPolicy {
  readonly allow: ReadonlySet<McpPermission>;
  /** `undefined`: lifted (`Infinity`). */
  readonly maxFeeFils: number | undefined;
  /** `undefined`: lifted (`Infinity`). */
  readonly dailyCapFils: number | undefined;
  readonly confirmation: McpConfirmation;
  readonly store: DeliveryStore;
  /** `undefined`: no balance check. */
  readonly walletFloorFils: number | undefined;
  readonly quoteMaxAgeMs: number;
  readonly quoteMarginPercent: number;
  readonly revealCustomerPhones: boolean;
  readonly deliverTopUpLink: McpPolicy['deliverTopUpLink'];
  readonly subscriptionPollMs: number;
  readonly now: () => number;
}

/** The memory store of each client, shared by every server of that client that names no store. */
const defaultStores = new WeakMap<object, DeliveryStore>();

/** A KWD amount from 0 to `MAX_KWD_AMOUNT` with at most 3 decimals. */
function isAmount(value: unknown): value is KwdAmount {
  return kwd.isValid(value) && kwd.compare(value, 0) >= 0 && kwd.compare(value, MAX_KWD_AMOUNT) <= 0;
}

const AMOUNT = `a KWD amount from 0 to ${MAX_KWD_AMOUNT} with at most 3 decimals, like 2.5 or "2.500"`;

/** A limit: an amount, or `Infinity` (lifted). */
const limit = z.optional(
  accepted<KwdAmount>((value) => value === Infinity || isAmount(value), `${AMOUNT}, or Infinity (no limit)`),
);

/** The shape of {@link McpPolicy}, its defaults applied. */
const McpPolicySchema = optionsObject(
  {
    allow: z.optional(
      accepted<readonly McpPermission[]>(
        (value) =>
          Array.isArray(value) &&
          value.every((entry) => (MCP_PERMISSIONS as readonly unknown[]).includes(entry)) &&
          (!value.includes('create') || value.includes('read')),
        `an array of ${MCP_PERMISSIONS.map((p) => `'${p}'`).join(', ')}, 'create' with 'read' (every booking needs a quote from estimate_delivery, a read tool)`,
      ),
    ),
    maxFeeKwd: limit,
    dailyCapKwd: limit,
    confirmation: z.optional(oneOf<McpConfirmation>(['elicitation', 'elicitation-or-token'])),
    store: storeOption,
    storeTimeoutMs: upTo(1, 60_000),
    walletFloorKwd: z.optional(
      accepted<KwdAmount | null>(
        (value) => value === null || isAmount(value),
        `${AMOUNT}, or null (no check)`,
      ),
    ),
    quoteMaxAgeSeconds: upTo(1, 86_400),
    quoteMarginPercent: z.optional(
      accepted<number>(
        (value) => typeof value === 'number' && value >= 0 && value <= 100,
        'a number from 0 to 100',
      ),
    ),
    revealCustomerPhones: flag,
    deliverTopUpLink: hook<NonNullable<McpPolicy['deliverTopUpLink']>>(),
    subscriptionPollSeconds: upTo(5, 3600),
    now: hook<() => number>(),
  },
  {
    allow: ['read'],
    maxFeeKwd: DEFAULT_MAX_FEE_KWD,
    dailyCapKwd: DEFAULT_DAILY_CAP_KWD,
    confirmation: 'elicitation-or-token',
    storeTimeoutMs: DEFAULT_STORE_TIMEOUT_MS,
    walletFloorKwd: 0,
    quoteMaxAgeSeconds: 600,
    quoteMarginPercent: 0,
    revealCustomerPhones: false,
    subscriptionPollSeconds: 15,
  },
);

/** `Infinity` (lifted) as `undefined`, any other amount as fils. */
function limitFils(value: KwdAmount): number | undefined {
  return value === Infinity ? undefined : kwd.toFils(value);
}

/**
 * Checks `policy` for `client` and applies the defaults.
 * @throws {ConfigurationError} `option` the field (`policy.maxFeeKwd`) that is unknown or invalid, the
 * message `Invalid policy.<field>: expected <what>, got <value>` (the client's secrets redacted).
 */
export function resolvePolicy(client: object, policy: McpPolicy = {}): ResolvedPolicy {
  let read: z.output<typeof McpPolicySchema>;
  try {
    read = readOptions(McpPolicySchema, policy, 'policy');
  } catch (error) {
    const redactor = clientInternalsOf(client)?.redactor;
    if (!(error instanceof ConfigurationError) || redactor === undefined) throw error;
    throw new ConfigurationError(redactor.text(error.option), redactor.text(error.message));
  }
  let shared = read.store;
  if (shared === undefined) {
    shared = defaultStores.get(client) ?? memoryStore();
    defaultStores.set(client, shared);
  }
  return {
    allow: new Set(read.allow),
    maxFeeFils: limitFils(read.maxFeeKwd),
    dailyCapFils: limitFils(read.dailyCapKwd),
    confirmation: read.confirmation,
    store: withStoreDeadline(shared, read.storeTimeoutMs),
    walletFloorFils: read.walletFloorKwd === null ? undefined : kwd.toFils(read.walletFloorKwd),
    quoteMaxAgeMs: read.quoteMaxAgeSeconds * 1000,
    quoteMarginPercent: read.quoteMarginPercent,
    revealCustomerPhones: read.revealCustomerPhones,
    deliverTopUpLink: read.deliverTopUpLink,
    subscriptionPollMs: read.subscriptionPollSeconds * 1000,
    now: read.now ?? Date.now,
  };
}
