/**
 * The one request pipeline of the client's resources: the operation's row (`core/operations.ts`) names
 * what is checked, what is sent, how it is read, and how it is sent (README "Endpoints").
 * @module
 */
import { type Answered, APIPromise, type ResponseHead } from '../core/api-promise.js';
import {
  OPERATIONS,
  type OperationDefinition,
  type OperationInput,
  type OperationName,
  type OperationOutput,
  requestOf,
} from '../core/operations.js';
import type { RequestOptions, TaskCreateOptions } from '../core/options.js';
import type { ResourceContext } from '../internal/context.js';
import type { CallTraceOptions } from '../internal/http-request.js';
import { bodyOf, headOf, sendOperation } from '../internal/send-operation.js';
import type { TaskWithId } from '../schemas/task.js';
import type { TaskCreateParams } from '../schemas/task-create.js';
import { createTask } from './task-creation/exactly-once-creation.js';

/** The operations called with one input: all but `tasks.list`, whose walk sends its pages itself. */
export type CalledOperation = Exclude<OperationName, 'tasks.list'>;

type ExactlyOnce<Name extends OperationName> = (typeof OPERATIONS)[Name] extends { send: 'exactly-once' }
  ? true
  : false;

/** What a call resolves with: the created task for the exactly-once create, else the row's output. */
export type CallOutput<Name extends CalledOperation> =
  ExactlyOnce<Name> extends true ? TaskWithId : OperationOutput<Name>;

/** A call's input: the create's parameters for the exactly-once create, else the row's input. */
export type CallInput<Name extends CalledOperation> =
  ExactlyOnce<Name> extends true ? TaskCreateParams : OperationInput<Name>;

/** A call's options: `tasks.create`'s for the exactly-once create. */
export type CallOptions<Name extends CalledOperation> =
  ExactlyOnce<Name> extends true ? TaskCreateOptions : RequestOptions;

/**
 * Calls operation `name` with `input` (its path parameters and body parameters): checks the input, then
 * sends it by the row's send policy: as one request ({@link sendOperation}: its reading and its
 * errors), or `'exactly-once'` (the create of an order, traced as one call).
 * @throws {RequestValidationError} naming each bad field; nothing is sent.
 */
export function request<Name extends CalledOperation>(
  context: ResourceContext,
  name: Name,
  input: CallInput<Name>,
  options?: CallOptions<Name>,
): APIPromise<CallOutput<Name>> {
  const row: OperationDefinition = OPERATIONS[name];
  const answered =
    row.send === 'exactly-once'
      ? createExactlyOnce(context, input as unknown as TaskCreateParams, options ?? {})
      : sendOperation(context, name, { params: input as Readonly<Record<string, unknown>> }, options);
  return new APIPromise(answered as Promise<Answered<CallOutput<Name>>>);
}

/** The create of an order, one traced call whose POSTs are its attempts (`task-creation/`). */
function createExactlyOnce(
  context: ResourceContext,
  params: TaskCreateParams,
  options: TaskCreateOptions,
): Promise<Answered<TaskWithId>> {
  const orderNumber = typeof params?.orderNumber === 'string' ? params.orderNumber : undefined;
  const trace: CallTraceOptions<Answered<TaskWithId>> = {
    attributes: orderNumber === undefined ? {} : { 'delivery.order_number': orderNumber },
    outcome: ({ head }, call) => ({ status: head?.status, attempts: call.posts }),
  };
  return context.transport.trace(requestOf('tasks.create'), trace, async (call) => {
    const body = bodyOf(context, 'tasks.create', params) as TaskCreateParams;
    const task = await createTask(context, body, options, call);
    if (call.answered !== undefined) createdHeads.set(task, headOf(call.answered));
    return { data: task, head: createdHeads.get(task) };
  });
}

/** The answer that produced each created task, for creates that join its flight. */
const createdHeads = new WeakMap<TaskWithId, ResponseHead>();
