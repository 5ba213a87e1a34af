/**
 * `delivery-task wallet balance` and `wallet top-up <amount>`: the prepaid wallet (spec
 * OpenAPI `retrieveWalletBalance`, OpenAPI `topUpWallet`, README "What the spec leaves open, and what we
 * chose").
 */
import { MIN_TOP_UP_KWD } from 'delivery-task-sdk/schemas';
import { kwdCell, timeCell, withoutControls } from '../format.js';
import { UsageError } from './args.js';
import type { OperatorCommandSpec } from './command.js';

/** `wallet balance`. */
export const walletBalance: OperatorCommandSpec = {
  words: ['wallet', 'balance'],
  arguments: [],
  options: {},
  summary: 'show the wallet balance (KWD)',
  details: ['--json: { "walletAmount": <KWD number>, … } as the service sent it.'],
  async run(context) {
    const balance = await context.client.wallet.retrieveBalance({ signal: context.signal });
    if (context.output.json) context.output.document(balance);
    else context.output.line(kwdCell(balance.walletAmount));
  },
};

const AMOUNT = /^\d+(\.\d+)?$/;

/** `wallet top-up <amount>`. */
export const walletTopUp: OperatorCommandSpec = {
  words: ['wallet', 'top-up'],
  arguments: ['<amount KWD>'],
  options: {},
  summary: `print a payment link to top the wallet up (at least ${MIN_TOP_UP_KWD} KWD)`,
  details: [
    'Prints the payment URL alone on stdout (open it in a browser; it expires after 24 hours);',
    'the amount and expiry go to stderr. Never retried: each call issues a new link.',
    '--json: the answer as the service sent it ({ "paymentUrl", … }).',
  ],
  async run(context, input) {
    const [text = ''] = input.positionals;
    if (!AMOUNT.test(text)) {
      throw new UsageError(
        `amount must be KWD as a decimal number, like 5 or 12.500, got ${JSON.stringify(text)}`,
      );
    }
    // The SDK checks the minimum and the 3 decimals (its error names `amount`).
    const topUp = await context.client.wallet.topUp({ amount: Number(text) }, { signal: context.signal });
    if (context.output.json) {
      context.output.document(topUp);
      return;
    }
    context.output.line(withoutControls(topUp.paymentUrl));
    const expires = topUp.expiresAt === undefined ? '' : `; the link expires ${timeCell(topUp.expiresAt)}`;
    context.output.note(`top-up of ${kwdCell(topUp.amount ?? text)} requested${expires}`);
  },
};
