/**
 * Wallet balance and top-up (README "What the spec leaves open, and what we chose": minimum 5 KWD, link valid
 * 24 h). @module
 */
import * as z from 'zod/mini';
import { bound } from './checks.js';
import { KwdNumber } from './primitives.js';

/** Smallest top-up the service accepts, in KWD. */
export const MIN_TOP_UP_KWD = 5;

/** The wallet balance. Invoice accounts have no balance check (the mock reports 0). */
export const WalletBalance = z.looseObject({
  /** Balance in KWD. */
  walletAmount: z.number(),
});
export type WalletBalance = z.infer<typeof WalletBalance>;

/** Parameters of `client.wallet.topUp`. */
export const WalletTopUpParams = z.strictObject({
  /** Amount in KWD: at least 5, at most `MAX_KWD_AMOUNT`, at most 3 decimals (`kwd.toNumber('12.5')`). */
  amount: KwdNumber.clone().check(
    bound('minimum', MIN_TOP_UP_KWD, `Top-up amount must be at least ${MIN_TOP_UP_KWD} KWD`),
  ),
});
export type WalletTopUpParams = z.input<typeof WalletTopUpParams>;

/** A payment link for a top-up; other fields the service sends are kept. */
export const WalletTopUp = z.looseObject({
  /** Open in a browser to pay; expires 24 hours after issue. */
  paymentUrl: z.string(),
  /** Amount in KWD (mock). */
  amount: z.optional(z.number()),
  /** ISO 8601 expiry (mock). */
  expiresAt: z.optional(z.string()),
});
export type WalletTopUp = z.infer<typeof WalletTopUp>;
