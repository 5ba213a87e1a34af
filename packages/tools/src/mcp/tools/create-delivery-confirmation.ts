/** How `create_delivery` is confirmed: the person asked by elicitation, or a token bound to the arguments. */
import { canonicalJson } from '../confirmation.js';
import { kwdText } from '../money.js';
import { pointText } from '../quotes.js';
import { Refusal } from '../refusal.js';
import type { Session } from '../session.js';
import { plainText, quoted } from '../text.js';
import type { ToolOutput } from '../tool.js';
import type { Plan } from './create-delivery-checks.js';
import type { CreateDeliveryInput, CreateParams } from './create-delivery-schema.js';

/** How long the person has to answer a confirmation question, ms. */
export const ELICITATION_TIMEOUT_MS = 5 * 60_000;

/** Where the booking picks up, in words. */
function pickupText(plan: Plan): string {
  const { params } = plan;
  if (params.customPickup === true && params.selectedBranch !== undefined)
    return `branch ${quoted(params.selectedBranch)}`;
  if (plan.pickup !== undefined) return pointText(plan.pickup);
  return "the account's default pickup point";
}

function deliverToText(params: CreateParams): string {
  const lines = params.deliveryLocation.fullAddress ?? [];
  const address = lines.length > 0 ? `${quoted(lines.join(', '))} ` : '';
  return `${address}(${pointText(params.deliveryLocation)})`;
}

/**
 * The texts of a booking shown to the person (question, `wouldBook`), redacted and neutralised ({@link
 * plainText}).
 */
function summaryOf(session: Session, plan: Plan): { orderNumber: string; deliverTo: string; pickup: string } {
  const params = session.redact(plan.params);
  return {
    orderNumber: plainText(params.orderNumber),
    deliverTo: deliverToText(params),
    pickup: pickupText({ ...plan, params }),
  };
}

/** Step 6, with elicitation: asks the person. Resolves when they accept; throws a refusal otherwise. */
export async function askPerson(
  session: Session,
  plan: Plan,
  spentFils: number,
  signal: AbortSignal,
): Promise<void> {
  const fee = kwdText(plan.quotedFils);
  const { capFils } = session.spend;
  const cap =
    capFils === undefined
      ? `today's spending would be ${kwdText(spentFils + plan.quotedFils)} KWD`
      : `${kwdText(Math.max(0, capFils - spentFils - plan.quotedFils))} KWD of today's ${kwdText(capFils)} KWD cap would be left`;
  const shown = summaryOf(session, plan);
  const message =
    `Book a delivery for order ${quoted(shown.orderNumber)} to ${shown.deliverTo}, picked up at ` +
    `${shown.pickup}, for a fee of ${fee} KWD? After it, ${cap}.`;
  let answer: Awaited<ReturnType<Session['server']['elicitInput']>>;
  try {
    answer = await session.server.elicitInput(
      {
        mode: 'form',
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            confirm: {
              type: 'boolean',
              title: 'Book this delivery',
              description: `Spends ${fee} KWD from the wallet`,
            },
          },
          required: ['confirm'],
        },
      },
      { signal, timeout: ELICITATION_TIMEOUT_MS },
    );
  } catch (error) {
    throw new Refusal(
      'confirmation',
      `the person could not be asked (${plainText(session.redactText(error instanceof Error ? error.message : String(error)), 200)}); nothing was booked`,
    );
  }
  if (answer.action === 'accept' && answer.content?.confirm === true) return;
  throw new Refusal(
    'confirmation',
    `the person ${answer.action === 'cancel' ? 'dismissed' : 'declined'} the booking; nothing was booked`,
    {
      answer: answer.action,
    },
  );
}

/** Step 6, without elicitation: the token. Returns the result of the first step, or `undefined` to go on. */
export function checkToken(
  session: Session,
  input: CreateDeliveryInput,
  plan: Plan,
  balanceFils: number | undefined,
): ToolOutput | undefined {
  const { confirmationToken, ...args } = input;
  const bound = canonicalJson(args);
  if (confirmationToken === undefined) {
    const { token, expiresAt } = session.confirmations.issue(bound);
    return {
      status: 'confirmation_required',
      confirmationToken: token,
      confirmationExpiresAt: new Date(expiresAt).toISOString(),
      wouldBook: {
        ...summaryOf(session, plan),
        feeKwd: kwdText(plan.quotedFils),
        ...(balanceFils === undefined ? {} : { walletAfterKwd: kwdText(balanceFils - plan.quotedFils) }),
      },
      next: 'Nothing was booked. Show the person what would be booked; to book, call create_delivery again with exactly the same arguments plus this confirmationToken.',
    };
  }
  const check = session.confirmations.take(confirmationToken, bound);
  if (check === 'ok') return undefined;
  const why = {
    unknown: 'is not a token this session issued',
    expired: 'has expired',
    used: 'was already used (a token books once, and is spent when presented with other arguments)',
    mismatch: 'was issued for other arguments, so it is now spent',
  }[check];
  throw new Refusal(
    'confirmation',
    `the confirmationToken ${why}: call create_delivery without a token to get a new one`,
    { token: check },
  );
}
