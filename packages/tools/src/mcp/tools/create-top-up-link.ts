/** `create_top_up_link` (README "Agents (MCP)"). */

import { WalletTopUpParams } from 'delivery-task-sdk/schemas';
import * as z from 'zod/mini';
import { kwdText, priceFils } from '../money.js';
import { Refusal } from '../refusal.js';
import { failureResult } from '../results.js';
import { defineTool } from '../tool.js';

/** How long the person has to act on the link's elicitation before the tool answers anyway, ms. */
export const LINK_ELICITATION_TIMEOUT_MS = 5 * 60_000;

/** `text` with the link, and its last path segment (the token), replaced. */
function withoutLink(text: string, paymentUrl: string): string {
  let clean = text.replaceAll(paymentUrl, '[payment link]');
  let token = '';
  try {
    token = new URL(paymentUrl).pathname.split('/').filter(Boolean).at(-1) ?? '';
  } catch {
    // Not a URL: the whole text was replaced above.
  }
  if (token.length >= 6) clean = clean.replaceAll(token, '[token]');
  return clean;
}

function originOf(paymentUrl: string): string | undefined {
  try {
    return new URL(paymentUrl).origin;
  } catch {
    return undefined;
  }
}

/** `create_top_up_link`. */
export const createTopUpLink = defineTool({
  name: 'create_top_up_link',
  title: 'Request a wallet top-up link',
  description:
    'Requests a payment link to top the prepaid wallet up (at least 5 KWD; it expires after 24 hours). The link ' +
    'goes to the person directly (the client shows it), never to you: the result says how it was delivered. ' +
    'No money moves until the person pays.',
  permission: 'topUp',
  // Each call issues a new link (not idempotent); it moves no money by itself.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  input: z.strictObject({
    amount: WalletTopUpParams.shape.amount.check(z.describe('KWD, at least 5, at most 3 decimals')),
  }),
  output: z.object({
    amountKwd: z.string(),
    expiresAt: z.optional(z.string()),
    delivered: z.enum(['shown to the person', "handed to the merchant's application"]),
    personResponse: z.optional(z.enum(['accept', 'decline', 'cancel'])),
    paymentSite: z.optional(
      z.string().check(z.describe('Origin of the payment page, without the link itself')),
    ),
  }),
  async run({ amount }, session, signal) {
    const viaUrl = session.elicitation().url;
    const hook = session.policy.deliverTopUpLink;
    if (!viaUrl && hook === undefined) {
      throw new Refusal(
        'topUpLinkDelivery',
        'this client cannot show a link to the person without the model seeing it (it does not support URL elicitation), and the server has no other way to deliver one; no link was requested. The person can top up from a terminal (delivery-task wallet top-up <amount>) or the dashboard.',
      );
    }
    const link = await session.client.wallet.topUp({ amount }, { signal });
    const amountKwd = kwdText(priceFils(link.amount ?? amount) ?? 0);
    const facts = {
      amountKwd,
      ...(link.expiresAt === undefined ? {} : { expiresAt: link.expiresAt }),
      ...(originOf(link.paymentUrl) === undefined ? {} : { paymentSite: originOf(link.paymentUrl) }),
    };
    try {
      if (viaUrl) {
        const answer = await session.server.elicitInput(
          {
            mode: 'url',
            message: `Pay ${amountKwd} KWD into the delivery wallet${link.expiresAt === undefined ? '' : ` (the link expires ${link.expiresAt})`}.`,
            url: link.paymentUrl,
            elicitationId: `topup_${globalThis.crypto.randomUUID()}`,
          },
          { signal, timeout: LINK_ELICITATION_TIMEOUT_MS },
        );
        return { ...facts, delivered: 'shown to the person', personResponse: answer.action };
      }
      await hook?.({ paymentUrl: link.paymentUrl, amountKwd, expiresAt: link.expiresAt });
      return { ...facts, delivered: "handed to the merchant's application" };
    } catch (error) {
      // The link is removed with the secrets, before the line is cut: a cut link would leave its start.
      return failureResult(
        'create_top_up_link: the link was requested but could not be delivered',
        error,
        (text) => withoutLink(session.redactText(text), link.paymentUrl),
      );
    }
  },
});
