/**
 * Defaults of the mock, the shape of its options as a schema read by `readOptions`, and the checked,
 * normalised form of its options.
 * @module
 */
import * as z from 'zod/mini';
import { accepted, oneOf, optionsObject, upTo } from '../internal/option-checks.js';
import { invalidOption, readOptions } from '../internal/read-options.js';
import { type KwdAmount, kwd } from '../kwd.js';
import type { Branch } from '../schemas/branch.js';
import { TASK_STATUSES } from '../schemas/lifecycle.js';
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

/** A seed task as read: an object, its `id` (if any) non-empty and unique, its `status` a task status. */
export type ReadSeedTask = Readonly<Record<string, unknown>>;

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
  /** The option `tasks`, its shape checked; each one's body is checked by `seedRecords`. */
  readonly seeds: readonly ReadSeedTask[];
}

/** Most seed tasks a mock takes. */
export const MAX_SEED_TASKS = 10_000;

/** The `<what>` of an amount of the options (a balance, a fee). */
const AMOUNT = 'a KWD amount ≥ 0 with at most 3 decimals, like 2.5 or "2.500"';

const text = accepted<string>(
  (value) => typeof value === 'string' && value.trim() !== '',
  'a non-empty string',
);

const amount = accepted<KwdAmount>((value) => kwd.isValid(value) && kwd.compare(value, 0) >= 0, AMOUNT);

/** A latitude (`limit` 90) or longitude (180), decimal degrees. */
const degrees = (limit: number) =>
  accepted<number>(
    (value) => typeof value === 'number' && Math.abs(value) <= limit,
    `a number from -${limit} to ${limit}`,
  );

/** `value` as the normalised webhook URL: an absolute http(s) URL; `undefined` for anything else. */
function webhookHref(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `value` is a base URL the mock serves under (see `serviceAddress`). */
function isBaseUrl(value: unknown): value is string {
  try {
    return typeof value === 'string' && serviceAddress(value) !== undefined;
  } catch {
    return false;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Branch names (a string, or an object's `name`) non-empty and unique, each refused at its path. */
const uniqueBranchNames = z.check<MockBranch[]>((payload) => {
  const names = new Set<string>();
  for (const [index, branch] of payload.value.entries()) {
    const name = typeof branch === 'string' ? branch : branch.name;
    const path = typeof branch === 'string' ? [index] : [index, 'name'];
    const fault =
      typeof name !== 'string' || name.trim() === ''
        ? 'a non-empty string'
        : names.has(name)
          ? 'a name no other branch has'
          : undefined;
    if (fault !== undefined) {
      payload.issues.push({ code: 'custom', path, message: fault, input: name });
      return;
    }
    names.add(name);
  }
});

/** Seed ids unique among the seed tasks. */
const uniqueSeedIds = z.check<ReadSeedTask[]>((payload) => {
  const ids = new Set<unknown>();
  for (const [index, seed] of payload.value.entries()) {
    if (seed.id !== undefined && ids.has(seed.id)) {
      payload.issues.push({
        code: 'custom',
        path: [index, 'id'],
        message: 'an id no other seed task has',
        input: seed.id,
      });
      return;
    }
    ids.add(seed.id);
  }
});

const SEEDS = `an array of at most ${MAX_SEED_TASKS} seed tasks`;

/** The shape of {@link MockDeliveryServiceOptions}, {@link MOCK_DEFAULTS} applied (not `now`). */
const MockOptionsSchema = optionsObject(
  {
    apiKey: z.optional(text),
    sellerId: z.optional(text),
    baseUrl: z.optional(
      accepted<string>(isBaseUrl, 'an absolute http(s) URL without query, fragment or credentials'),
    ),
    account: z.optional(optionsObject({ type: oneOf(['wallet', 'invoice']), balance: z.optional(amount) })),
    branches: z.optional(
      z.readonly(
        z
          .array(
            accepted<MockBranch>(
              (value) => typeof value === 'string' || isObject(value),
              'a branch name or a { name, … } object',
            ),
            'an array of branch names or { name, … } objects',
          )
          .check(uniqueBranchNames),
      ),
    ),
    pricing: z.optional(
      optionsObject({ baseFee: z.optional(amount), perKm: z.optional(amount) }, MOCK_DEFAULTS.pricing),
    ),
    origin: z.optional(optionsObject({ latitude: degrees(90), longitude: degrees(180) })),
    webhookUrl: z.optional(
      accepted<string>((value) => webhookHref(value) !== undefined, 'an absolute http(s) URL'),
    ),
    createStatus: z.optional(accepted<200 | 201>((value) => value === 200 || value === 201, '200 or 201')),
    now: z.optional(
      accepted<() => Date>((value) => typeof value === 'function', 'a function returning a Date'),
    ),
    tasks: z.optional(
      z
        .array(
          z.looseObject(
            { id: z.optional(text), status: z.optional(oneOf(TASK_STATUSES)) },
            'an object (a POST tasks body with optional id and status)',
          ),
          SEEDS,
        )
        .check(z.maxLength(MAX_SEED_TASKS, SEEDS), uniqueSeedIds),
    ),
    recordLimit: upTo(1),
    taskLimit: upTo(1),
  },
  MOCK_DEFAULTS,
);

/**
 * The absolute http(s) URL `webhookUrl`, normalised, or `undefined` for `undefined` (`setWebhookUrl`).
 * @throws {TypeError} naming `webhookUrl` for anything else.
 */
export function resolveWebhookUrl(webhookUrl: unknown): string | undefined {
  if (webhookUrl === undefined) return undefined;
  const href = webhookHref(webhookUrl);
  if (href === undefined) throw new TypeError('webhookUrl must be an absolute http(s) URL');
  return href;
}

/**
 * `options` read by the mock's options schema, {@link MOCK_DEFAULTS} filled in; the seed tasks' bodies are
 * left to `seedRecords`.
 * @throws {ConfigurationError} for an unknown or invalid option, `option` its path (`account.type`,
 * `branches.2.name`, `taskLimit`), the message `Invalid <path>: expected <what>, got <value>` (the API key
 * and seller id shown only by their kind and length); `taskLimit` below the number of seed tasks.
 */
export function resolveOptions(options: MockDeliveryServiceOptions = {}): ServiceConfig {
  const read = readOptions(MockOptionsSchema, options);
  const { account, pricing, origin, taskLimit } = read;
  const seeds = read.tasks ?? [];
  if (seeds.length > taskLimit) {
    throw invalidOption('taskLimit', `an integer ≥ the number of seed tasks (${seeds.length})`, taskLimit);
  }
  if (account.type === 'wallet' && account.balance === undefined) {
    throw invalidOption('account.balance', AMOUNT, undefined);
  }
  return Object.freeze({
    apiKey: read.apiKey,
    sellerId: read.sellerId,
    address: serviceAddress(read.baseUrl),
    accountType: account.type,
    openingBalanceFils: account.type === 'wallet' ? kwd.toFils(account.balance ?? 0) : 0,
    fees: Object.freeze({ baseFeeFils: kwd.toFils(pricing.baseFee), perKmFils: kwd.toFils(pricing.perKm) }),
    origin: Object.freeze({ latitude: origin.latitude, longitude: origin.longitude }),
    branches: Object.freeze(
      read.branches.map(
        (branch, index): Branch =>
          structuredClone(
            typeof branch === 'string'
              ? { id: `branch-${index + 1}`, name: branch }
              : { id: `branch-${index + 1}`, ...branch },
          ),
      ),
    ),
    webhookUrl: webhookHref(read.webhookUrl),
    createStatus: read.createStatus,
    now: read.now ?? (() => new Date()),
    recordLimit: read.recordLimit,
    taskLimit,
    seeds,
  });
}
