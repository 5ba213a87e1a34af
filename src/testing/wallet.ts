/** The seller's account: balance, fees and top-up links, in fils (OpenAPI `topUpWallet`). @module */
import { kwd } from '../kwd.js';
import type { MockWallet } from './types.js';

/** Lifetime of a top-up payment link: 24 hours, in ms. */
export const TOP_UP_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** Payment links remembered; one more forgets the oldest (then an unknown link). */
export const MAX_TOP_UP_LINKS = 10_000;

/**
 * The largest balance a wallet holds, fils: `MAX_KWD_AMOUNT` (9007199254740.991 KWD),
 * `Number.MAX_SAFE_INTEGER` fils.
 */
export const MAX_BALANCE_FILS = Number.MAX_SAFE_INTEGER;

/**
 * Why a credit of `amountFils` onto `balanceFils` cannot be held (the sum would pass {@link
 * MAX_BALANCE_FILS}),
 * else `undefined`. Both are safe integers ≥ 0, so the difference is exact.
 */
export function creditRefusal(balanceFils: number, amountFils: number): string | undefined {
  if (amountFils <= MAX_BALANCE_FILS - balanceFils) return undefined;
  return `the wallet holds ${kwd.fromFils(balanceFils)} KWD: ${kwd.fromFils(amountFils)} KWD more would pass the largest amount, ${kwd.fromFils(MAX_BALANCE_FILS)} KWD (at most ${kwd.fromFils(MAX_BALANCE_FILS - balanceFils)} KWD more)`;
}

export type TopUpLinkProblem = 'unknown' | 'used' | 'expired';

/** A top-up payment link that cannot be completed; {@link TopUpLinkError.problem} says why. */
export class TopUpLinkError extends Error {
  override readonly name = 'TopUpLinkError';
  /**
   * `unknown` (not issued, or forgotten by a reset), `used` (already completed) or `expired` (24 h after
   * issue).
   */
  readonly problem: TopUpLinkProblem;

  constructor(problem: TopUpLinkProblem, message: string) {
    super(message);
    this.problem = problem;
  }
}

export interface TopUpLink {
  readonly paymentUrl: string;
  /** fils. */
  readonly amountFils: number;
  readonly expiresAt: Date;
}

/**
 * The context a `JSON.parse` reviver gets where the engine gives it (V8 ≥ 11.4): the source text of a
 * primitive.
 */
interface ReviverContext {
  readonly source?: string;
}

/**
 * The fils of a request body's top-level `amount`, read from its source text (`9007199254740.991` is not a
 * double: read as a number it becomes …740.990); `fromNumber` (the parsed number in fils) where the engine
 * gives no source text or the text is not plain decimal (`5e3`, `5.0000`).
 */
export function exactAmountFils(body: string, fromNumber: number): number {
  let source: string | undefined;
  try {
    const holders = new Map<unknown, string>();
    const root: unknown = JSON.parse(body, function (this: unknown, key, value, context?: ReviverContext) {
      if (key === 'amount' && typeof value === 'number' && typeof context?.source === 'string') {
        holders.set(this, context.source);
      }
      return value;
    });
    source = holders.get(root);
  } catch {
    return fromNumber;
  }
  if (source === undefined || !/^\d{1,16}(\.\d{1,3})?$/.test(source)) return fromNumber;
  const fils = kwd.toFils(source);
  // The text and the number name the same amount (the number is its nearest double): else trust the number.
  return Math.abs(fils - fromNumber) <= 1 ? fils : fromNumber;
}

/** The mutable account behind {@link MockWallet}. */
export class Account {
  readonly type: 'wallet' | 'invoice';
  readonly #openingBalanceFils: number;
  #balanceFils: number;
  #feesChargedFils = 0;
  #feesCharged = 0;
  #invoicedFils = 0;
  #invoiced = 0;
  readonly #links = new Map<string, { link: TopUpLink; used: boolean }>();

  /**
   * @param openingBalanceFils the balance after construction and each {@link reset} (ignored on invoice
   * accounts).
   */
  constructor(type: 'wallet' | 'invoice', openingBalanceFils: number) {
    this.type = type;
    this.#openingBalanceFils = type === 'wallet' ? openingBalanceFils : 0;
    this.#balanceFils = this.#openingBalanceFils;
  }

  get balanceFils(): number {
    return this.#balanceFils;
  }

  /** True when a create with this fee is allowed: always on an invoice account, else when balance ≥ fee. */
  canPay(feeFils: number): boolean {
    return this.type === 'invoice' || this.#balanceFils >= feeFils;
  }

  /**
   * Deducts a fee (true), or invoices it. @throws {RangeError} when a wallet cannot pay (see {@link canPay}).
   */
  charge(feeFils: number): boolean {
    if (this.type === 'invoice') {
      this.#invoicedFils += feeFils;
      this.#invoiced += 1;
      return false;
    }
    if (!this.canPay(feeFils)) throw new RangeError('the wallet balance is below the fee');
    this.#balanceFils -= feeFils;
    this.#feesChargedFils += feeFils;
    this.#feesCharged += 1;
    return true;
  }

  /**
   * Issues a payment link for `amountFils`, valid 24 hours from `issuedAt`.
   * @throws {RangeError} naming the amount when the balance plus it would pass {@link MAX_BALANCE_FILS};
   * nothing is stored.
   */
  issueTopUp(paymentUrl: string, amountFils: number, issuedAt: Date): TopUpLink {
    const refusal = creditRefusal(this.#balanceFils, amountFils);
    if (refusal !== undefined) throw new RangeError(`amount: ${refusal}`);
    const link = {
      paymentUrl,
      amountFils,
      expiresAt: new Date(issuedAt.getTime() + TOP_UP_LINK_LIFETIME_MS),
    };
    this.#links.set(paymentUrl, { link, used: false });
    if (this.#links.size > MAX_TOP_UP_LINKS) {
      const oldest = this.#links.keys().next();
      if (!oldest.done) this.#links.delete(oldest.value);
    }
    return link;
  }

  /**
   * Pays a link once; returns the balance, fils.
   * @throws {TopUpLinkError} for an unknown, expired or used link; `RangeError` when the balance plus its
   * amount would pass {@link MAX_BALANCE_FILS} (nothing is credited; the link stays unpaid).
   */
  completeTopUp(paymentUrl: string, at: Date): number {
    const entry = this.#links.get(paymentUrl);
    if (!entry) throw new TopUpLinkError('unknown', `Unknown top-up payment link: ${paymentUrl}`);
    if (entry.used) throw new TopUpLinkError('used', `Top-up payment link already used: ${paymentUrl}`);
    if (at.getTime() >= entry.link.expiresAt.getTime()) {
      throw new TopUpLinkError(
        'expired',
        `Top-up payment link expired at ${entry.link.expiresAt.toISOString()}: ${paymentUrl}`,
      );
    }
    const refusal = creditRefusal(this.#balanceFils, entry.link.amountFils);
    if (refusal !== undefined) throw new RangeError(`This payment cannot be credited: ${refusal}`);
    entry.used = true;
    this.#balanceFils += entry.link.amountFils;
    return this.#balanceFils;
  }

  /** Opening balance, no fees, no links. */
  reset(): void {
    this.#balanceFils = this.#openingBalanceFils;
    this.#feesChargedFils = 0;
    this.#feesCharged = 0;
    this.#invoicedFils = 0;
    this.#invoiced = 0;
    this.#links.clear();
  }

  /** A frozen snapshot for {@link MockWallet}. */
  snapshot(): MockWallet {
    return Object.freeze({
      type: this.type,
      balance: kwd.toNumber(kwd.fromFils(this.#balanceFils)),
      balanceFils: this.#balanceFils,
      feesChargedFils: this.#feesChargedFils,
      feesCharged: this.#feesCharged,
      invoicedFils: this.#invoicedFils,
      invoiced: this.#invoiced,
    });
  }
}
