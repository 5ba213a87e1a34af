/** The money policy of an MCP server (README "Agents (MCP)"; `docs/mcp.md`, "The policy"). */
import { ConfigurationError, type DeliveryStore, kwd, memoryStore } from 'delivery-task-sdk';
import { clientInternalsOf, DEFAULT_STORE_TIMEOUT_MS, withStoreDeadline } from 'delivery-task-sdk/internal';
import type { KwdAmount } from 'delivery-task-sdk/kwd';
import { MAX_KWD_AMOUNT } from 'delivery-task-sdk/schemas';
import { cut } from './text.js';

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

const POLICY_FIELDS: readonly (keyof McpPolicy)[] = [
  'allow',
  'maxFeeKwd',
  'dailyCapKwd',
  'confirmation',
  'store',
  'storeTimeoutMs',
  'walletFloorKwd',
  'quoteMaxAgeSeconds',
  'quoteMarginPercent',
  'revealCustomerPhones',
  'deliverTopUpLink',
  'subscriptionPollSeconds',
  'now',
];

/** The memory store of each client, shared by every server of that client that names no store. */
const defaultStores = new WeakMap<object, DeliveryStore>();

function fail(option: string, message: string): never {
  throw new ConfigurationError(`policy.${option}`, `Invalid MCP policy: ${option} ${message}`);
}

/** A limit as fils: `fallback` when absent, `undefined` for `Infinity` (lifted). */
function limitFils(
  option: 'maxFeeKwd' | 'dailyCapKwd',
  value: unknown,
  fallback: string,
): number | undefined {
  if (value === Number.POSITIVE_INFINITY) return undefined;
  if (value !== undefined && !kwd.isValid(value)) {
    fail(option, 'must be a KWD amount with at most 3 decimals, like 2.5 or "2.500", or Infinity (no limit)');
  }
  return amountFils(option, value ?? fallback);
}

/** A KWD amount ≥ 0 as fils, or `undefined` when absent. */
function amountFils(option: keyof McpPolicy, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (!kwd.isValid(value)) fail(option, 'must be a KWD amount with at most 3 decimals, like 2.5 or "2.500"');
  if (kwd.compare(value, 0) < 0) fail(option, 'must be an amount of 0 KWD or more');
  if (kwd.compare(value, MAX_KWD_AMOUNT) > 0) fail(option, `must be at most ${MAX_KWD_AMOUNT} KWD`);
  return kwd.toFils(value);
}

function integerIn(
  option: keyof McpPolicy,
  value: unknown,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(option, `must be an integer from ${min} to ${max}`);
  }
  return value;
}

function permissions(value: unknown): ReadonlySet<McpPermission> {
  if (value === undefined) return new Set(['read']);
  if (!Array.isArray(value))
    fail('allow', `must be an array of ${MCP_PERMISSIONS.map((p) => `'${p}'`).join(', ')}`);
  const allow = new Set<McpPermission>();
  for (const entry of value) {
    if (!(MCP_PERMISSIONS as readonly unknown[]).includes(entry)) {
      fail('allow', `has ${JSON.stringify(entry)}; each entry is one of ${MCP_PERMISSIONS.join(', ')}`);
    }
    allow.add(entry as McpPermission);
  }
  if (allow.has('create') && !allow.has('read')) {
    fail(
      'allow',
      "has 'create' without 'read': every booking needs a quote from estimate_delivery, a read tool",
    );
  }
  return allow;
}

/**
 * Checks `policy` for `client` and applies the defaults.
 * @throws {ConfigurationError} naming the field (`policy.maxFeeKwd`) that is unknown or invalid.
 */
export function resolvePolicy(client: object, policy: McpPolicy = {}): ResolvedPolicy {
  if (typeof policy !== 'object' || policy === null) {
    throw new ConfigurationError('policy', 'Invalid MCP policy: expected an object');
  }
  for (const name of Object.keys(policy)) {
    if (!(POLICY_FIELDS as readonly string[]).includes(name)) {
      const shown = cut(clientInternalsOf(client)?.redactor.text(name) ?? name, 60);
      throw new ConfigurationError(
        `policy.${shown}`,
        `Invalid MCP policy: unknown field ${JSON.stringify(shown)} (known: ${POLICY_FIELDS.join(', ')})`,
      );
    }
  }
  const store = policy.store;
  if (
    store !== undefined &&
    (typeof store !== 'object' ||
      store === null ||
      !(['setIfAbsent', 'get', 'compareAndSet', 'delete'] as const).every(
        (op) => typeof store[op] === 'function',
      ))
  ) {
    fail('store', 'must be a DeliveryStore (setIfAbsent, get, compareAndSet, delete)');
  }
  for (const hook of ['deliverTopUpLink', 'now'] as const) {
    if (policy[hook] !== undefined && typeof policy[hook] !== 'function') fail(hook, 'must be a function');
  }
  if (policy.revealCustomerPhones !== undefined && typeof policy.revealCustomerPhones !== 'boolean') {
    fail('revealCustomerPhones', 'must be true or false');
  }
  const confirmation = policy.confirmation ?? 'elicitation-or-token';
  if (confirmation !== 'elicitation' && confirmation !== 'elicitation-or-token') {
    fail('confirmation', "must be 'elicitation' or 'elicitation-or-token'");
  }
  const margin = policy.quoteMarginPercent ?? 0;
  if (typeof margin !== 'number' || !Number.isFinite(margin) || margin < 0 || margin > 100) {
    fail('quoteMarginPercent', 'must be a number from 0 to 100');
  }
  let shared = store;
  if (shared === undefined) {
    shared = defaultStores.get(client) ?? memoryStore();
    defaultStores.set(client, shared);
  }
  return {
    allow: permissions(policy.allow),
    maxFeeFils: limitFils('maxFeeKwd', policy.maxFeeKwd, DEFAULT_MAX_FEE_KWD),
    dailyCapFils: limitFils('dailyCapKwd', policy.dailyCapKwd, DEFAULT_DAILY_CAP_KWD),
    confirmation,
    store: withStoreDeadline(
      shared,
      integerIn('storeTimeoutMs', policy.storeTimeoutMs, 1, 60_000, DEFAULT_STORE_TIMEOUT_MS),
    ),
    walletFloorFils:
      policy.walletFloorKwd === null ? undefined : (amountFils('walletFloorKwd', policy.walletFloorKwd) ?? 0),
    quoteMaxAgeMs: integerIn('quoteMaxAgeSeconds', policy.quoteMaxAgeSeconds, 1, 86_400, 600) * 1000,
    quoteMarginPercent: margin,
    revealCustomerPhones: policy.revealCustomerPhones ?? false,
    deliverTopUpLink: policy.deliverTopUpLink,
    subscriptionPollMs:
      integerIn('subscriptionPollSeconds', policy.subscriptionPollSeconds, 5, 3600, 15) * 1000,
    now: policy.now ?? Date.now,
  };
}
