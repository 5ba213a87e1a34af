/** `delivery-task tasks create --file ORDER.json` (docs/cli.md). */
import { open } from 'node:fs/promises';
import type { Task } from 'delivery-task-sdk';
import { DuplicateTaskError, RequestValidationError } from 'delivery-task-sdk';
import { nestsDeeperThan } from 'delivery-task-sdk/internal';
import type { TaskWithId } from 'delivery-task-sdk/schemas';
import { TaskCreateParams } from 'delivery-task-sdk/schemas';
import * as z from 'zod/mini';
import { findJsonSyntaxError } from '../json-syntax.js';
import { stringValue, UsageError } from './args.js';
import type { CommandContext, OperatorCommandSpec } from './command.js';
import { taskDetails } from './task-view.js';

/** Messages for the issues the SDK's zod/mini schemas give none for (zod/mini ships without a locale). */
function issueMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return `Expected ${issue.expected}, received ${issue.input === null ? 'null' : typeof issue.input}`;
    case 'too_small':
      return issue.origin === 'string' ? 'Must not be empty' : `Expected at least ${issue.minimum}`;
    case 'too_big':
      return `Expected at most ${issue.maximum}${issue.origin === 'string' ? ' characters' : ''}`;
    case 'unrecognized_keys':
      return `Unknown field${issue.keys.length === 1 ? '' : 's'}: ${issue.keys.join(', ')}`;
    case 'invalid_value':
      return `Expected one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    default:
      return undefined;
  }
}

/**
 * Checks an order file against `TaskCreateParams` before the order-number lookup runs.
 * @throws {RequestValidationError} naming every field at fault, as `client.tasks.create` would.
 */
function checkCreateParams(params: unknown): void {
  const result = z.safeParse(TaskCreateParams, params, { error: issueMessage });
  if (result.success) return;
  const issues = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
    code: issue.code,
  }));
  throw new RequestValidationError('tasks.create', issues);
}

/** Largest order file read, in bytes (64 KiB: the create parameters of one order take a few hundred). */
export const MAX_ORDER_FILE_BYTES = 64 * 1024;

/** Deepest nesting of arrays and objects read in an order file (the create parameters nest 3 levels). */
export const MAX_ORDER_FILE_DEPTH = 64;

/**
 * List requests when looking an order number up (exact matches; a literal search only when the service
 * refuses the pattern).
 */
export const ORDER_LOOKUP_MAX_PAGES = 100;

/**
 * Reads and parses the order file.
 * @throws {UsageError} when it cannot be read, is larger than {@link MAX_ORDER_FILE_BYTES} (however its
 * size reads), is not JSON (naming the line and column of the first error), or is not a JSON object. A
 * leading UTF-8 byte-order mark is skipped.
 */
async function readOrderFile(path: string, signal: AbortSignal): Promise<Record<string, unknown>> {
  let text: string;
  try {
    const file = await open(path, 'r');
    try {
      const { size } = await file.stat();
      if (size > MAX_ORDER_FILE_BYTES) {
        throw new UsageError(
          `${path}: ${size} bytes, larger than the ${MAX_ORDER_FILE_BYTES} bytes an order file may have`,
        );
      }
      // Read up to one byte past the bound, whatever the size said: a device (/dev/zero) or a file
      // growing meanwhile would otherwise be read without end.
      const buffer = Buffer.alloc(MAX_ORDER_FILE_BYTES + 1);
      let filled = 0;
      while (filled < buffer.length) {
        signal.throwIfAborted();
        const { bytesRead } = await file.read(buffer, filled, buffer.length - filled, null);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      if (filled > MAX_ORDER_FILE_BYTES) {
        throw new UsageError(`${path}: larger than the ${MAX_ORDER_FILE_BYTES} bytes an order file may have`);
      }
      text = new TextDecoder().decode(buffer.subarray(0, filled));
    } finally {
      await file.close();
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as { code?: unknown }).code;
    throw new UsageError(
      `${path}: cannot read the order file${typeof code === 'string' ? ` (${code})` : ''}`,
    );
  }
  // A UTF-8 byte-order mark (as some editors save) is not part of the JSON.
  if (text.startsWith('\ufeff')) text = text.slice(1);
  // Refused before parsing: JSON.parse spends most of a second on a megabyte of `[[[…`.
  if (nestsDeeperThan(text, MAX_ORDER_FILE_DEPTH)) {
    // The scan stops at the same depth, so it names where (or an earlier syntax error).
    const found = findJsonSyntaxError(text);
    const where = found === undefined ? '' : ` at line ${found.line}, column ${found.column}`;
    throw new UsageError(
      `${path}: nests deeper than ${MAX_ORDER_FILE_DEPTH} levels${where}, more than any create parameters`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const found = findJsonSyntaxError(text);
    throw new UsageError(
      found === undefined
        ? `${path}: not valid JSON (${(error as Error).message})`
        : `${path}: not valid JSON at line ${found.line}, column ${found.column}: ${found.reason}`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`${path}: expected a JSON object with the create parameters`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * Every task whose `orderNumber` is exactly `orderNumber`, newest first, through the public
 * `client.tasks.findByOrderNumber` (README "Finding the tasks of an order").
 * @throws {PaginationLimitError} past {@link ORDER_LOOKUP_MAX_PAGES} list requests; request errors as they
 * come.
 */
export function tasksOfOrder(context: CommandContext, orderNumber: string): Promise<TaskWithId[]> {
  return context.client.tasks.findByOrderNumber(orderNumber, {
    signal: context.signal,
    maxPages: ORDER_LOOKUP_MAX_PAGES,
  });
}

/** `tasks create --file ORDER.json [--repeat-delivery]`. */
export const tasksCreate: OperatorCommandSpec = {
  words: ['tasks', 'create'],
  arguments: [],
  options: {
    file: {
      type: 'string',
      valueName: 'ORDER.json',
      required: true,
      description: 'the create parameters as JSON (orderNumber required)',
    },
    'repeat-delivery': {
      type: 'boolean',
      description: 'create another delivery even when the order number already has a task',
    },
  },
  summary: 'create the task of an order, once per order number',
  details: [
    'The file holds the parameters of client.tasks.create; the SDK checks them before anything is sent.',
    'If a task already carries the orderNumber, it is printed and nothing is created (exit 0);',
    'stderr says which. --repeat-delivery skips that lookup and creates another delivery.',
    '--json: { "created": true|false, "task": {…} }.',
  ],
  async run(context, input) {
    const path = stringValue(input, 'file') ?? '';
    const repeatDelivery = input.values['repeat-delivery'] === true;
    const params = await readOrderFile(path, context.signal);
    try {
      checkCreateParams(params);
    } catch (error) {
      throw Object.assign(error as Error, { message: `${path}: ${(error as Error).message}` });
    }
    const orderNumber = params.orderNumber;
    if (typeof orderNumber !== 'string') {
      throw new UsageError(`${path}: orderNumber is required (it is what makes a create safe to run twice)`);
    }
    const { output } = context;
    if (!repeatDelivery) {
      const existing = await tasksOfOrder(context, orderNumber);
      if (existing.length > 1) {
        throw new DuplicateTaskError({ orderNumber, taskIds: existing.map((task) => task.id) });
      }
      const [task] = existing;
      if (task !== undefined) {
        output.note(
          `order ${orderNumber} already has task ${task.id}: nothing created (--repeat-delivery creates another delivery)`,
        );
        show(context, task, false);
        return;
      }
    }
    // Looked up above (a repeat delivery lets the SDK look, to tell its task from the earlier ones).
    const task = await context.client.tasks.create(params, {
      signal: context.signal,
      repeatDelivery,
      lookupFirst: repeatDelivery,
    });
    output.note(`created task ${task.id} for order ${orderNumber}`);
    show(context, task, true);
  },
};

function show(context: CommandContext, task: Task, created: boolean): void {
  if (context.output.json) context.output.document({ created, task });
  else for (const line of taskDetails(context.output.redact(task))) context.output.line(line);
}
