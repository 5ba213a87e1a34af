/** The mock's handler of each operation, after authentication and faults (`handlers.ts`). @module */
import type { OperationName } from '../core/operations.js';
import { kwd } from '../kwd.js';
import { EstimateParams } from '../schemas/estimate.js';
import { TaskCreateParams } from '../schemas/task-create.js';
import { WalletTopUpParams } from '../schemas/wallet.js';
import { travelDetailBetween } from './geo.js';
import { randomPaymentToken } from './ids.js';
import { listPage, parseListQuery, SearchTooCostlyError, type TaskListPage, withOrder } from './listing.js';
import { type CheckedCreateParams, newTask, pickupOf, tripOf } from './new-task.js';
import type { ServiceConfig } from './options.js';
import { deliveryFeeFils } from './pricing.js';
import { type Parsed, parseJsonBody } from './request-body.js';
import { errorResponse, jsonResponse } from './responses.js';
import type { TaskRecord, TaskStore } from './state.js';
import { MAX_TASK_TEXT_CHARS, overlongText } from './text-bounds.js';
import { type Account, creditRefusal, exactAmountFils } from './wallet.js';

/** Stands for the top-up answer's `amount` until its exact text is written in. */
const EXACT_AMOUNT = '\u0000amount';

export interface ServiceState {
  readonly config: ServiceConfig;
  readonly store: TaskStore;
  readonly account: Account;
  readonly objectId: () => string;
  readonly deliveryId: () => string;
}

/** An authenticated request, reduced to what the handlers use. */
export interface OperationRequest {
  readonly url: URL;
  readonly body: string;
  readonly contentType: string | null;
  readonly sellerId: string;
  /** Decoded (`{ id }` for `/tasks/{id}`). */
  readonly params: Readonly<Record<string, string>>;
  /** Fault `repeat-page`. */
  readonly repeatFirstPage: boolean;
  /** Fault `sort`: the order `tasks.list` answers in, whatever was asked. */
  readonly sortOverride?: { readonly sortBy: string; readonly sortOrder: 1 | -1 } | undefined;
}

const badRequest = (message: string): Response => errorResponse(400, message, 'BAD_REQUEST');

/** A task ready to store once its fee is taken. */
export interface TaskDraft {
  /** fils. */
  readonly feeFils: number;
  record(walletDeducted: boolean): TaskRecord;
}

/** What a create decides before money moves: branch (unknown: a failure), pickup, trip, fee, the record. */
export function draftTask(
  state: ServiceState,
  params: CheckedCreateParams,
  sellerId: string,
  taskId?: string,
): Parsed<TaskDraft> {
  const { config } = state;
  const branch =
    params.selectedBranch === undefined
      ? undefined
      : config.branches.find((candidate) => candidate.name === params.selectedBranch);
  if (params.selectedBranch !== undefined && !branch) {
    return {
      ok: false,
      message: `selectedBranch: unknown branch ${JSON.stringify(params.selectedBranch)} (valid: ${config.branches.map((b) => JSON.stringify(b.name)).join(', ')})`,
    };
  }
  const pickup = pickupOf(params, branch, config.origin);
  const trip = tripOf(params, pickup);
  const feeFils = deliveryFeeFils(config.fees, trip.totalDistance);
  return {
    ok: true,
    value: {
      feeFils,
      record: (walletDeducted) => {
        const timestamp = config.now().toISOString();
        const task = newTask(params, {
          id: taskId ?? state.objectId(),
          historyId: state.objectId(),
          deliveryId: state.deliveryId(),
          sellerId,
          timestamp,
          pickup,
          trip,
          origin: config.origin,
        });
        return {
          seq: state.store.nextSeq(),
          task,
          feeFils,
          walletDeducted,
          pickupAddress: pickup.address,
          events: [{ status: 'pending', timestamp }],
          completedAt: undefined,
        };
      },
    },
  };
}

/**
 * `POST tasks`: 400 (bad body, seller or branch), 402 `INSUFFICIENT_BALANCE`, else charges and stores
 * `pending`.
 */
export function createTask(state: ServiceState, request: OperationRequest): Response {
  const parsed = parseJsonBody(request.body, request.contentType, TaskCreateParams);
  if (!parsed.ok) return badRequest(parsed.message);
  const params = parsed.value;
  const overlong = overlongText(params);
  if (overlong !== undefined) {
    return badRequest(
      `${overlong.path}: at most ${MAX_TASK_TEXT_CHARS} characters, got ${overlong.length} (the mock's bound on a task's text)`,
    );
  }
  if (params.sellerId !== undefined && params.sellerId !== request.sellerId) {
    return badRequest('sellerId: must equal the x-seller-id header');
  }
  const draft = draftTask(state, params, request.sellerId);
  if (!draft.ok) return badRequest(draft.message);
  const { feeFils } = draft.value;
  const { account } = state;
  if (!account.canPay(feeFils)) {
    return errorResponse(
      402,
      `Insufficient wallet balance: ${kwd.fromFils(account.balanceFils)} KWD available, ${kwd.fromFils(feeFils)} KWD required`,
      'INSUFFICIENT_BALANCE',
    );
  }
  const record = draft.value.record(account.charge(feeFils));
  state.store.add(record);
  return jsonResponse({ data: { createTask: structuredClone(record.task) } }, state.config.createStatus);
}

/** `GET tasks/{id}`: 404 also for another seller's task. */
export function retrieveTask(state: ServiceState, request: OperationRequest): Response {
  const record = state.store.get(request.params.id ?? '');
  if (!record || record.task.sellerId !== request.sellerId)
    return errorResponse(404, 'Task not found', 'NOT_FOUND');
  return jsonResponse(structuredClone(record.task));
}

/**
 * `GET tasks` (rules in `listing.ts`); `repeat-page` answers page 1 with 1000 pages; `sort` sorts its own
 * way.
 */
export function listTasks(state: ServiceState, request: OperationRequest): Response {
  const { repeatFirstPage, sortOverride } = request;
  const query = parseListQuery(request.url.searchParams);
  if (!query.ok) return badRequest(query.message);
  const asked =
    sortOverride === undefined
      ? query.value
      : withOrder(query.value, sortOverride.sortBy, sortOverride.sortOrder);
  const own = state.store.all().filter((record) => record.task.sellerId === request.sellerId);
  let page: TaskListPage;
  try {
    page = listPage(own, repeatFirstPage ? { ...asked, page: 1 } : asked);
  } catch (error) {
    if (error instanceof SearchTooCostlyError) return badRequest(error.message);
    throw error;
  }
  const tasks = page.records.map((record) => structuredClone(record.task));
  if (repeatFirstPage) {
    const totalPages = 1000;
    return jsonResponse({
      tasks,
      page: query.value.page,
      limit: page.limit,
      totalPages,
      total: totalPages * page.limit,
    });
  }
  return jsonResponse({
    tasks,
    page: page.page,
    limit: page.limit,
    totalPages: page.totalPages,
    total: page.total,
  });
}

/** `POST tasks/estimate` → `{ travelDetail, price }` (km, minutes, KWD). */
export function estimate(state: ServiceState, request: OperationRequest): Response {
  const parsed = parseJsonBody(request.body, request.contentType, EstimateParams);
  if (!parsed.ok) return badRequest(parsed.message);
  const travelDetail = travelDetailBetween(parsed.value.from, parsed.value.to);
  const price = kwd.toNumber(kwd.fromFils(deliveryFeeFils(state.config.fees, travelDetail.totalDistance)));
  return jsonResponse({ travelDetail, price });
}

export function listBranches(state: ServiceState): Response {
  return jsonResponse({ branches: structuredClone(state.config.branches) });
}

/** `GET tasks/wallet-balance`: KWD, 0 on an invoice account. */
export function walletBalance(state: ServiceState): Response {
  return jsonResponse({ walletAmount: kwd.toNumber(kwd.fromFils(state.account.balanceFils)) });
}

/**
 * `POST tasks/wallet-topup`: a link `<origin>/pay/<token>` valid 24 h; 400 `INVOICE_ACCOUNT` on an invoice
 * account.
 */
export function topUp(state: ServiceState, request: OperationRequest): Response {
  const parsed = parseJsonBody(request.body, request.contentType, WalletTopUpParams);
  if (!parsed.ok) return badRequest(parsed.message);
  if (state.account.type === 'invoice') {
    return errorResponse(400, 'Top-up is only available for wallet accounts', 'INVOICE_ACCOUNT');
  }
  const amountFils = exactAmountFils(request.body, kwd.toFils(parsed.value.amount));
  const refusal = creditRefusal(state.account.balanceFils, amountFils);
  if (refusal !== undefined) return badRequest(`amount: ${refusal}`);
  const paymentUrl = `${state.config.address.origin}/pay/${randomPaymentToken()}`;
  const link = state.account.issueTopUp(paymentUrl, amountFils, state.config.now());
  // `amount` written as its exact decimal text: the nearest double of 9007199254740.991 prints …740.99.
  const text = JSON.stringify({
    paymentUrl: link.paymentUrl,
    amount: EXACT_AMOUNT,
    expiresAt: link.expiresAt.toISOString(),
  }).replace(JSON.stringify(EXACT_AMOUNT), kwd.fromFils(amountFils).replace(/\.?0+$/, ''));
  const bytes = new TextEncoder().encode(text);
  return new Response(bytes, {
    headers: { 'content-type': 'application/json', 'content-length': String(bytes.byteLength) },
  });
}

export type OperationHandler = (state: ServiceState, request: OperationRequest) => Response;

export type OperationHandlers = { readonly [Name in OperationName]: OperationHandler };

export const OPERATION_HANDLERS: OperationHandlers = {
  'tasks.create': createTask,
  'tasks.retrieve': retrieveTask,
  'tasks.list': listTasks,
  'tasks.estimate': estimate,
  'branches.list': listBranches,
  'wallet.retrieveBalance': walletBalance,
  'wallet.topUp': topUp,
};
