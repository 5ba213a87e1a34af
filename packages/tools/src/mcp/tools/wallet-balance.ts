/**
 * `get_wallet_balance`: the wallet balance, and what the policy leaves the agent to spend today
 * (README "Agents (MCP)"; OpenAPI `retrieveWalletBalance`).
 */
import * as z from 'zod/mini';
import { kwdText, priceFils } from '../money.js';
import { defineTool } from '../tool.js';

/** `get_wallet_balance`. */
export const getWalletBalance = defineTool({
  name: 'get_wallet_balance',
  title: 'Get the wallet balance',
  description:
    "Reads the prepaid wallet's balance (KWD) and, when bookings are allowed, today's spending on fees against " +
    "the policy's daily cap and per-delivery limit. Invoice accounts read 0.",
  permission: 'read',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({}),
  output: z.object({
    walletAmountKwd: z.string(),
    policy: z.optional(
      z.object({
        day: z.string().check(z.describe('Today in Kuwait (UTC+3), YYYY-MM-DD')),
        spentTodayKwd: z.optional(
          z.string().check(z.describe('Fees booked today by agents sharing this store')),
        ),
        dailyCapKwd: z.optional(z.string()),
        roomLeftTodayKwd: z.optional(z.string()),
        maxFeeKwd: z.optional(z.string()),
        walletFloorKwd: z.optional(z.string()),
        note: z.optional(z.string()),
      }),
    ),
  }),
  async run(_input, session, signal) {
    const balance = await session.client.wallet.retrieveBalance({ signal });
    const walletFils = priceFils(balance.walletAmount);
    const result: Record<string, unknown> = {
      walletAmountKwd: walletFils === undefined ? String(balance.walletAmount) : kwdText(walletFils),
    };
    const { policy, spend } = session;
    if (!policy.allow.has('create')) return result;
    const shown: Record<string, string> = { day: spend.today() };
    if (policy.maxFeeFils !== undefined) shown.maxFeeKwd = kwdText(policy.maxFeeFils);
    if (policy.walletFloorFils !== undefined) shown.walletFloorKwd = kwdText(policy.walletFloorFils);
    try {
      const spent = await spend.spent(shown.day);
      shown.spentTodayKwd = kwdText(spent);
      if (spend.capFils !== undefined) {
        shown.dailyCapKwd = kwdText(spend.capFils);
        shown.roomLeftTodayKwd = kwdText(Math.max(0, spend.capFils - spent));
      }
    } catch {
      shown.note = "today's spending could not be read from the store; bookings are refused until it answers";
    }
    result.policy = shown;
    return result;
  },
});
