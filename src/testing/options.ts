/** Defaults of the mock and the checked, normalised form of its options. @module */
import { kwd } from '../kwd.js';
import type { Branch } from '../schemas/branch.js';
import type { FeeSchedule } from './pricing.js';
import { type ServiceAddress, serviceAddress } from './routes.js';
import type { MockBranch, MockDeliveryServiceOptions, MockPoint } from './types.js';

/** The mock's defaults (KWD, decimal degrees), for tests that derive expected values. */
export const MOCK_DEFAULTS = Object.freeze({
  apiKey: 'test-api-key',
  sellerId: 'test-seller',
  /** Reference form; `<baseUrl>/rest/tasks…` is served too. */
  baseUrl: 'https://delivery.test',
  account: Object.freeze({ type: 'wallet', balance: 100 } as const),
  /** `fee = 0.750 KWD + 0.100 KWD per km`. */
  pricing: Object.freeze({ baseFee: 0.75, perKm: 0.1 } as const),
  origin: Object.freeze({ latitude: 29.3759, longitude: 47.9774 } as const),
  /** Three branches in Kuwait with ids, addresses and coordinates. */
  branches: Object.freeze([
    Object.freeze({
      id: 'branch-1',
      name: 'Kuwait City',
      address: 'Abdullah Al-Salem Street, Kuwait City',
      latitude: 29.3759,
      longitude: 47.9774,
    } as const),
    Object.freeze({
      id: 'branch-2',
      name: 'Salmiya',
      address: 'Salem Al-Mubarak Street, Salmiya',
      latitude: 29.3339,
      longitude: 48.0761,
    } as const),
    Object.freeze({
      id: 'branch-3',
      name: 'Jahra',
      address: 'Marzouq Al-Mutairi Street, Jahra',
      latitude: 29.3375,
      longitude: 47.6581,
    } as const),
  ] as const),
  createStatus: 200,
  /** Requests and webhook deliveries kept, each. */
  recordLimit: 10_000,
  /** Tasks kept. */
  taskLimit: 50_000,
} as const);

export interface ServiceConfig {
  readonly apiKey: string;
  readonly sellerId: string;
  readonly address: ServiceAddress;
  readonly accountType: 'wallet' | 'invoice';
  /** fils; 0 on an invoice account. */
  readonly openingBalanceFils: number;
  readonly fees: FeeSchedule;
  readonly origin: MockPoint;
  /** The mock's own copies, served as clones. */
  readonly branches: readonly Branch[];
  /** As given at creation (`setWebhookUrl` may change the mock's). */
  readonly webhookUrl: string | undefined;
  readonly createStatus: 200 | 201;
  readonly now: () => Date;
  readonly recordLimit: number;
  readonly taskLimit: number;
}

function requireText(value: unknown, option: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new TypeError(`${option} must be a non-empty string`);
  return value;
}

function requireFils(amount: unknown, option: string): number {
  if (!kwd.isValid(amount)) {
    throw new RangeError(`${option} must be a KWD amount (number or decimal text, at most 3 decimals)`);
  }
  const fils = kwd.toFils(amount);
  if (fils < 0) throw new RangeError(`${option} must not be negative`);
  return fils;
}

function requirePoint(point: unknown, option: string): MockPoint {
  const candidate = point as Partial<MockPoint> | null;
  const { latitude, longitude } = candidate ?? {};
  if (
    typeof latitude !== 'number' ||
    typeof longitude !== 'number' ||
    !(Math.abs(latitude) <= 90) ||
    !(Math.abs(longitude) <= 180)
  ) {
    throw new RangeError(`${option} must be { latitude: −90…90, longitude: −180…180 }`);
  }
  return Object.freeze({ latitude, longitude });
}

function resolveBranches(branches: ReadonlyArray<MockBranch>): readonly Branch[] {
  if (!Array.isArray(branches)) throw new TypeError('branches must be an array of names or { name } objects');
  const names = new Set<string>();
  return Object.freeze(
    branches.map((branch, index): Branch => {
      const resolved: Branch =
        typeof branch === 'string'
          ? { id: `branch-${index + 1}`, name: branch }
          : { id: `branch-${index + 1}`, ...branch };
      const name = requireText(resolved.name, `branches[${index}].name`);
      if (names.has(name)) throw new RangeError(`branches: the name ${JSON.stringify(name)} is used twice`);
      names.add(name);
      return structuredClone(resolved);
    }),
  );
}

/** @throws {TypeError} naming `webhookUrl` for anything but an absolute http(s) URL or `undefined`. */
export function resolveWebhookUrl(webhookUrl: unknown): string | undefined {
  if (webhookUrl === undefined) return undefined;
  try {
    const url = new URL(requireText(webhookUrl, 'webhookUrl'));
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
  } catch {
    // Reported below.
  }
  throw new TypeError('webhookUrl must be an absolute http(s) URL');
}

/**
 * Checks the options and fills in {@link MOCK_DEFAULTS}. @throws {TypeError} / {RangeError} naming the option
 * (never the key).
 */
export function resolveOptions(options: MockDeliveryServiceOptions = {}): ServiceConfig {
  const account = options.account ?? MOCK_DEFAULTS.account;
  if (account.type !== 'wallet' && account.type !== 'invoice') {
    throw new TypeError("account.type must be 'wallet' or 'invoice'");
  }
  const createStatus = options.createStatus ?? MOCK_DEFAULTS.createStatus;
  if (createStatus !== 200 && createStatus !== 201) throw new RangeError('createStatus must be 200 or 201');
  const now = options.now ?? (() => new Date());
  if (typeof now !== 'function') throw new TypeError('now must be a function returning a Date');
  const recordLimit = options.recordLimit ?? MOCK_DEFAULTS.recordLimit;
  if (!Number.isSafeInteger(recordLimit) || recordLimit < 1) {
    throw new RangeError(`recordLimit must be a positive integer, got ${String(recordLimit)}`);
  }
  const taskLimit = options.taskLimit ?? MOCK_DEFAULTS.taskLimit;
  if (!Number.isSafeInteger(taskLimit) || taskLimit < 1) {
    throw new RangeError(`taskLimit must be a positive integer, got ${String(taskLimit)}`);
  }
  const seeds = options.tasks?.length ?? 0;
  if (seeds > taskLimit) throw new RangeError(`taskLimit (${taskLimit}) is below the ${seeds} seed tasks`);
  return Object.freeze({
    apiKey: requireText(options.apiKey ?? MOCK_DEFAULTS.apiKey, 'apiKey'),
    sellerId: requireText(options.sellerId ?? MOCK_DEFAULTS.sellerId, 'sellerId'),
    address: serviceAddress(requireText(options.baseUrl ?? MOCK_DEFAULTS.baseUrl, 'baseUrl')),
    accountType: account.type,
    openingBalanceFils: account.type === 'wallet' ? requireFils(account.balance, 'account.balance') : 0,
    fees: Object.freeze({
      baseFeeFils: requireFils(options.pricing?.baseFee ?? MOCK_DEFAULTS.pricing.baseFee, 'pricing.baseFee'),
      perKmFils: requireFils(options.pricing?.perKm ?? MOCK_DEFAULTS.pricing.perKm, 'pricing.perKm'),
    }),
    origin: requirePoint(options.origin ?? MOCK_DEFAULTS.origin, 'origin'),
    branches: resolveBranches(options.branches ?? MOCK_DEFAULTS.branches),
    webhookUrl: resolveWebhookUrl(options.webhookUrl),
    createStatus,
    now,
    recordLimit,
    taskLimit,
  });
}
