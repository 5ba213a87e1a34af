/** `create_delivery` (README "Agents (MCP)"). */

import type { Task } from 'delivery-task-sdk';
import {
  APIError,
  ConfigurationError,
  NotFoundError,
  RequestValidationError,
  StoreUnavailableError,
} from 'delivery-task-sdk';
import type { TaskCreateParams } from 'delivery-task-sdk/schemas';
import { kwdText, priceFils } from '../money.js';
import { tasksOfOrder } from '../order-lookup.js';
import { pointText, samePoint } from '../quotes.js';
import { Refusal } from '../refusal.js';
import { failureResult } from '../results.js';
import type { Session } from '../session.js';
import { quoted } from '../text.js';
import { defineTool, type ToolOutput } from '../tool.js';
import {
  capRefusal,
  checkMaxFee,
  checkParams,
  checkQuote,
  checkWallet,
  namedPickup,
  type Plan,
  spendingOf,
} from './create-delivery-checks.js';
import { askPerson, checkToken } from './create-delivery-confirmation.js';
import { CreateDeliveryInput, CreateDeliveryOutput } from './create-delivery-schema.js';

/** A task already carrying the order: returned, nothing charged. */
function alreadyBooked(session: Session, task: Task): ToolOutput {
  return {
    status: 'already_booked',
    task: session.view(task),
    charged: false,
    next: 'this order already has a task: nothing was booked or charged',
  };
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
    if (signal.aborted)
      throw new Refusal('confirmation', 'the call was cancelled before booking; nothing was booked');
    sent = true;
    // tasks.create checks selectedBranch against customPickup again before anything is sent.
    // The order was looked up above, under its claim: the SDK need not look again.
    const task = await session.client.tasks.create(params as TaskCreateParams, {
      signal,
      lookupFirst: false,
    });
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
