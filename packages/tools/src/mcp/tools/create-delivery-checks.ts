/** The checks of `create_delivery`: the booking, its quote, the policy's limits (README "Agents (MCP)"). */
import { TaskCreateParams } from 'delivery-task-sdk/schemas';
import * as z from 'zod/mini';
import { kwdText, priceFils } from '../money.js';
import { type Point, pointText, type Quote, samePoint } from '../quotes.js';
import { Refusal } from '../refusal.js';
import type { Session } from '../session.js';
import type { CreateParams, Spending } from './create-delivery-schema.js';

/** What the checks before confirmation established. */
export interface Plan {
  readonly params: CreateParams;
  readonly quote: Quote;
  /** The quoted fee, fils. */
  readonly quotedFils: number;
  /** The pickup point the booking names, when it names one. */
  readonly pickup: Point | undefined;
}

/** The SDK's create schema, issues as one line. */
export function checkParams(params: CreateParams): void {
  const checked = z.safeParse(TaskCreateParams, params);
  if (checked.success) return;
  const issues = checked.error.issues
    .slice(0, 10)
    .map((issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`)
    .join('; ');
  throw new Refusal('input', `the booking is not valid: ${issues}`);
}

/**
 * The pickup point a booking names: its `pickupLocation`, or its branch's coordinates; `undefined` for the
 * default.
 */
export async function namedPickup(
  session: Session,
  params: CreateParams,
  signal: AbortSignal,
): Promise<Point | undefined> {
  if (params.customPickup !== true) return undefined;
  if (params.pickupLocation !== undefined) return params.pickupLocation;
  if (params.selectedBranch === undefined) return undefined;
  const branches = await session.client.branches.list({ signal });
  const branch = branches.find((each) => each.name === params.selectedBranch) as
    | Record<string, unknown>
    | undefined;
  const { latitude, longitude } = branch ?? {};
  return typeof latitude === 'number' && typeof longitude === 'number' ? { latitude, longitude } : undefined;
}

/** Step 2: the quote. */
export function checkQuote(
  session: Session,
  estimateId: string,
  params: CreateParams,
  pickup: Point | undefined,
): Plan {
  const quote = session.quotes.get(estimateId);
  const again = 'call estimate_delivery for this booking and use its estimateId';
  if (quote === undefined) {
    throw new Refusal(
      'quote',
      `estimateId is not a quote of this session (quotes live in the session that made them): ${again}`,
    );
  }
  const ageMs = session.policy.now() - quote.at;
  if (ageMs > session.policy.quoteMaxAgeMs) {
    throw new Refusal(
      'quote',
      `the quote is ${Math.floor(ageMs / 1000)} s old, older than the ${session.policy.quoteMaxAgeMs / 1000} s a quote is valid: ${again}`,
      {
        quoteAgeSeconds: Math.floor(ageMs / 1000),
        quoteMaxAgeSeconds: session.policy.quoteMaxAgeMs / 1000,
      },
    );
  }
  if (!samePoint(quote.to, params.deliveryLocation)) {
    throw new Refusal(
      'quote',
      `the quote is for delivery to ${pointText(quote.to)}, not to ${pointText(params.deliveryLocation)}: ${again}`,
    );
  }
  if (pickup !== undefined && !samePoint(quote.from, pickup)) {
    throw new Refusal(
      'quote',
      `the quote is from ${pointText(quote.from)}, but the booking picks up at ${pointText(pickup)}: ${again}`,
    );
  }
  if (quote.priceFils === undefined) {
    throw new Refusal(
      'quote',
      'the service gave no price for this quote, and a booking needs a priced one: quote again',
    );
  }
  return { params, quote, quotedFils: quote.priceFils, pickup };
}

/** Steps 3 and 7: the per-delivery limit. */
export function checkMaxFee(session: Session, feeFils: number): void {
  const { maxFeeFils } = session.policy;
  if (maxFeeFils !== undefined && feeFils > maxFeeFils) {
    throw new Refusal(
      'maxFeeKwd',
      `the fee ${kwdText(feeFils)} KWD is above the ${kwdText(maxFeeFils)} KWD limit per delivery`,
      {
        feeKwd: kwdText(feeFils),
        maxFeeKwd: kwdText(maxFeeFils),
        overByKwd: kwdText(feeFils - maxFeeFils),
      },
    );
  }
}

/** The day's figures for a refusal or a result. */
export function spendingOf(session: Session, day: string, spentFils: number): z.infer<typeof Spending> {
  const { capFils } = session.spend;
  return {
    day,
    spentTodayKwd: kwdText(spentFils),
    ...(capFils === undefined
      ? {}
      : { dailyCapKwd: kwdText(capFils), roomLeftTodayKwd: kwdText(Math.max(0, capFils - spentFils)) }),
  };
}

/** The refusal of a fee that would take today's spending past the daily cap. */
export function capRefusal(session: Session, day: string, spentFils: number, feeFils: number): Refusal {
  const capFils = session.spend.capFils ?? 0;
  const room = Math.max(0, capFils - spentFils);
  return new Refusal(
    'dailyCapKwd',
    `the fee ${kwdText(feeFils)} KWD would take today's spending past the ${kwdText(capFils)} KWD cap: ${kwdText(spentFils)} KWD spent, ${kwdText(room)} KWD left today (${day}, Kuwait time)`,
    { feeKwd: kwdText(feeFils), ...spendingOf(session, day, spentFils) },
  );
}

/** Step 5 (and 7): the wallet floor. Resolves with the balance, fils; `undefined` without a floor. */
export async function checkWallet(
  session: Session,
  feeFils: number,
  signal: AbortSignal,
): Promise<number | undefined> {
  const floorFils = session.policy.walletFloorFils;
  if (floorFils === undefined) return undefined;
  const balance = await session.client.wallet.retrieveBalance({ signal });
  const balanceFils = priceFils(balance.walletAmount) ?? 0;
  if (balanceFils - feeFils < floorFils) {
    throw new Refusal(
      'walletFloorKwd',
      `the wallet holds ${kwdText(balanceFils)} KWD; a fee of ${kwdText(feeFils)} KWD would leave less than the ${kwdText(floorFils)} KWD floor (top the wallet up first)`,
      {
        walletAmountKwd: kwdText(balanceFils),
        feeKwd: kwdText(feeFils),
        walletFloorKwd: kwdText(floorFils),
        roomLeftKwd: kwdText(Math.max(0, balanceFils - floorFils)),
      },
    );
  }
  return balanceFils;
}
