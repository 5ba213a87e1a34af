/** `create_delivery` (README "Agents (MCP)"). */

import type { Task } from 'delivery-task-sdk';
import {
  APIError,
  ConfigurationError,
  NotFoundError,
  RequestValidationError,
  StoreUnavailableError,
} from 'delivery-task-sdk';
import { TaskCreateParams } from 'delivery-task-sdk/schemas';
import * as z from 'zod/mini';
import { canonicalJson } from '../confirmation.js';
import { kwdText, priceFils } from '../money.js';
import { tasksOfOrder } from '../order-lookup.js';
import { type Point, pointText, type Quote, samePoint } from '../quotes.js';
import { Refusal } from '../refusal.js';
import { failureResult } from '../results.js';
import type { Session } from '../session.js';
import { plainText, quoted } from '../text.js';
import { defineTool, type ToolOutput } from '../tool.js';
import {
  CreateDeliveryInput,
  CreateDeliveryOutput,
  type CreateParams,
  type Spending,
} from './create-delivery-schema.js';

/** How long the person has to answer a confirmation question, ms. */
export const ELICITATION_TIMEOUT_MS = 5 * 60_000;

/** What the checks before confirmation established. */
interface Plan {
  readonly params: CreateParams;
  readonly quote: Quote;
  /** The quoted fee, fils. */
  readonly quotedFils: number;
  /** The pickup point the booking names, when it names one. */
  readonly pickup: Point | undefined;
}

/** The SDK's create schema, issues as one line. */
function checkParams(params: CreateParams): void {
  const checked = z.safeParse(TaskCreateParams, params);
  if (checked.success) return;
  const issues = checked.error.issues
    .slice(0, 10)
    .map((issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`)
    .join('; ');
  throw new Refusal('input', `the booking is not valid: ${issues}`);
}

/** The pickup point a booking names: its `pickupLocation`, or its branch's coordinates; `undefined` for the default. */
async function namedPickup(session: Session, params: CreateParams, signal: AbortSignal): Promise<Point | undefined> {
  if (params.customPickup !== true) return undefined;
  if (params.pickupLocation !== undefined) return params.pickupLocation;
  if (params.selectedBranch === undefined) return undefined;
  const branches = await session.client.branches.list({ signal });
  const branch = branches.find((each) => each.name === params.selectedBranch) as Record<string, unknown> | undefined;
  const { latitude, longitude } = branch ?? {};
  return typeof latitude === 'number' && typeof longitude === 'number' ? { latitude, longitude } : undefined;
}

/** Step 2: the quote. */
function checkQuote(session: Session, estimateId: string, params: CreateParams, pickup: Point | undefined): Plan {
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
function checkMaxFee(session: Session, feeFils: number): void {
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
function spendingOf(session: Session, day: string, spentFils: number): z.infer<typeof Spending> {
  const { capFils } = session.spend;
  return {
    day,
    spentTodayKwd: kwdText(spentFils),
    ...(capFils === undefined
      ? {}
      : { dailyCapKwd: kwdText(capFils), roomLeftTodayKwd: kwdText(Math.max(0, capFils - spentFils)) }),
  };
}

function capRefusal(session: Session, day: string, spentFils: number, feeFils: number): Refusal {
  const capFils = session.spend.capFils ?? 0;
  const room = Math.max(0, capFils - spentFils);
  return new Refusal(
    'dailyCapKwd',
    `the fee ${kwdText(feeFils)} KWD would take today's spending past the ${kwdText(capFils)} KWD cap: ${kwdText(spentFils)} KWD spent, ${kwdText(room)} KWD left today (${day}, Kuwait time)`,
    { feeKwd: kwdText(feeFils), ...spendingOf(session, day, spentFils) },
  );
}

/** Step 5 (and 7): the wallet floor. Resolves with the balance, fils; `undefined` without a floor. */
async function checkWallet(session: Session, feeFils: number, signal: AbortSignal): Promise<number | undefined> {
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

/** The texts of a booking shown to the person (question, `wouldBook`), redacted and neutralised ({@link plainText}). */
function summaryOf(session: Session, plan: Plan): { orderNumber: string; deliverTo: string; pickup: string } {
  const params = session.redact(plan.params);
  return {
    orderNumber: plainText(params.orderNumber),
    deliverTo: deliverToText(params),
    pickup: pickupText({ ...plan, params }),
  };
}

/** A task already carrying the order: returned, nothing charged. */
function alreadyBooked(session: Session, task: Task): ToolOutput {
  return {
    status: 'already_booked',
    task: session.view(task),
    charged: false,
    next: 'this order already has a task: nothing was booked or charged',
  };
}

/** Step 6, with elicitation: asks the person. Resolves when they accept; throws a refusal otherwise. */
async function askPerson(session: Session, plan: Plan, spentFils: number, signal: AbortSignal): Promise<void> {
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
            confirm: { type: 'boolean', title: 'Book this delivery', description: `Spends ${fee} KWD from the wallet` },
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
function checkToken(
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

/** True when the failed create surely made no task (the service rejected it, or nothing was sent). */
function surelyNotCreated(error: unknown): boolean {
  if (error instanceof RequestValidationError || error instanceof ConfigurationError) return true;
  if (error instanceof StoreUnavailableError) return true;
  if (!(error instanceof APIError)) return false;
  return error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
}

/** The fee the service reports on a task (`estimatedPrice`, KWD text), fils. */
function reportedFee(task: Task): number | undefined {
  const value = (task as Record<string, unknown>).estimatedPrice;
  if (typeof value !== 'string') return undefined;
  return priceFils(Number(value));
}

/** Steps 7 and 8, once confirmed. */
async function book(session: Session, plan: Plan, signal: AbortSignal): Promise<ToolOutput> {
  const { params, quote } = plan;
  const { orderNumber } = params;
  let claim = await session.claims.claim(orderNumber);
  if (!claim.claimed && claim.state === 'booked') {
    try {
      return alreadyBooked(session, await session.client.tasks.retrieve(claim.taskId, { signal }));
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      // The service does not know the task the store remembers, and the look-up found none: book.
      await session.claims.forget(orderNumber, claim.value);
      claim = await session.claims.claim(orderNumber);
    }
  }
  if (!claim.claimed) {
    throw new Refusal(
      'orderInProgress',
      `order ${quoted(session.redactText(orderNumber))} is being booked by another session right now; look it up with find_tasks in a minute`,
    );
  }
  let reserved: { day: string; feeFils: number } | undefined;
  let sent = false;
  const warnings: string[] = [];
  try {
    const existing = await tasksOfOrder(session.client, orderNumber, signal);
    if (existing[0] !== undefined) {
      await session.claims.booked(orderNumber, claim.value, String(existing[0].id ?? ''));
      return alreadyBooked(session, existing[0]);
    }
    const fresh = priceFils(
      (await session.client.tasks.estimate({ from: quote.from, to: quote.to }, { signal })).price,
    );
    const margin = session.policy.quoteMarginPercent;
    const allowedFils = plan.quotedFils + Math.floor((plan.quotedFils * margin) / 100);
    if (fresh !== undefined && fresh > allowedFils) {
      throw new Refusal(
        'quoteMargin',
        `the fee rose from ${kwdText(plan.quotedFils)} KWD (quoted) to ${kwdText(fresh)} KWD, more than the ${margin}% margin allows (${kwdText(allowedFils)} KWD): quote again and confirm the new fee`,
        {
          quotedKwd: kwdText(plan.quotedFils),
          currentKwd: kwdText(fresh),
          allowedKwd: kwdText(allowedFils),
          quoteMarginPercent: margin,
        },
      );
    }
    const feeFils = Math.max(plan.quotedFils, fresh ?? 0);
    checkMaxFee(session, feeFils);
    const reservation = await session.spend.reserve(feeFils);
    if (!reservation.ok) throw capRefusal(session, reservation.day, reservation.spentFils, feeFils);
    reserved = { day: reservation.day, feeFils };
    await checkWallet(session, feeFils, signal);
    if (signal.aborted) throw new Refusal('confirmation', 'the call was cancelled before booking; nothing was booked');
    sent = true;
    // tasks.create checks selectedBranch against customPickup again before anything is sent.
    // The order was looked up above, under its claim: the SDK need not look again.
    const task = await session.client.tasks.create(params as TaskCreateParams, { signal, lookupFirst: false });
    await session.claims.booked(orderNumber, claim.value, String(task.id ?? ''));
    let countedFils = feeFils;
    let spentFils = reservation.spentFils;
    let actual = reportedFee(task);
    const pickedUpAt = task.pickupLocation;
    if (
      actual === undefined &&
      typeof pickedUpAt?.latitude === 'number' &&
      typeof pickedUpAt.longitude === 'number' &&
      !samePoint(quote.from, { latitude: pickedUpAt.latitude, longitude: pickedUpAt.longitude })
    ) {
      // The account's default pickup is not where the quote started: price the trip that was booked.
      const from = { latitude: pickedUpAt.latitude, longitude: pickedUpAt.longitude };
      actual = await session.client.tasks
        .estimate({ from, to: quote.to }, { signal })
        .then((estimate) => priceFils(estimate.price))
        .catch(() => undefined);
      warnings.push(
        `the task picks up at ${pointText(from)}, not at the quote's ${pointText(quote.from)}: its fee was priced again`,
      );
    }
    if (actual !== undefined && actual !== feeFils) {
      const total = await session.spend.adjust(reserved.day, actual - feeFils);
      if (total !== undefined) {
        spentFils = total;
        countedFils = actual;
      }
      if (actual > allowedFils)
        warnings.push(`the fee ${kwdText(actual)} KWD is above the quote's ${kwdText(plan.quotedFils)} KWD`);
    }
    return {
      status: 'booked',
      task: session.view(task),
      charged: true,
      feeKwd: kwdText(countedFils),
      spending: spendingOf(session, reserved.day, spentFils),
      ...(warnings.length === 0 ? {} : { warnings }),
    };
  } catch (error) {
    if (!sent || surelyNotCreated(error)) {
      if (reserved !== undefined) await session.spend.adjust(reserved.day, -reserved.feeFils);
      await session.claims.release(orderNumber, claim.value);
      throw error;
    }
    // The task may exist: the fee stays counted and the order claimed, so no one books it again blindly.
    const result = failureResult('create_delivery', error, (text) => session.redactText(text));
    result.content.push({
      type: 'text',
      text: `The outcome of this booking is unknown: its fee stays counted in today's spending and order ${quoted(session.redactText(orderNumber))} stays claimed for a few minutes. Look it up with find_tasks before booking it again.`,
    });
    return result;
  }
}

/** `create_delivery`. */
export const createDelivery = defineTool({
  name: 'create_delivery',
  title: 'Book a delivery',
  description:
    'Books a delivery task; its fee is taken from the wallet. Needs an estimateId from estimate_delivery in this ' +
    'session for the same coordinates, and confirmation: the person is asked when the client can ask; otherwise ' +
    'the first call books nothing and returns what it would book with a confirmationToken, and the same ' +
    'arguments plus that token book. Each orderNumber is booked once: repeating a call returns the task. ' +
    "Refused, with the rule and the room left, when the fee passes the policy's limits.",
  permission: 'create',
  // Spends money and sends a courier: additive, not destructive; the same order books once (idempotent).
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: CreateDeliveryInput,
  output: CreateDeliveryOutput,
  async run(input, session, signal) {
    const { estimateId, confirmationToken: _token, ...params } = input;
    checkParams(params);
    const pickup = await namedPickup(session, params, signal);
    const plan = checkQuote(session, estimateId, params, pickup);
    checkMaxFee(session, plan.quotedFils);
    const existing = await tasksOfOrder(session.client, params.orderNumber, signal);
    if (existing[0] !== undefined) return alreadyBooked(session, existing[0]);
    const day = session.spend.today();
    const spentFils = await session.spend.spent(day);
    const { capFils } = session.spend;
    if (capFils !== undefined && spentFils + plan.quotedFils > capFils)
      throw capRefusal(session, day, spentFils, plan.quotedFils);
    const balanceFils = await checkWallet(session, plan.quotedFils, signal);
    if (session.elicitation().form) {
      await askPerson(session, plan, spentFils, signal);
    } else if (session.policy.confirmation === 'elicitation') {
      throw new Refusal(
        'confirmation',
        "this server books only with the person's confirmation, and this client cannot ask the person (no form elicitation); nothing was booked. The merchant can let the agent confirm alone: delivery-task mcp --confirmation elicitation-or-token",
        { needs: 'elicitation' },
      );
    } else {
      const first = checkToken(session, input, plan, balanceFils);
      if (first !== undefined) return first;
    }
    return book(session, plan, signal);
  },
});
