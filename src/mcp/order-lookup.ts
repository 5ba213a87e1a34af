/**
 * The tasks that already carry an order number, read with the public `tasks.list`: an anchored, escaped
 * pattern first (only the exact order comes back), a literal search when the service refuses patterns,
 * exact matches kept, at most {@link ORDER_LOOKUP_MAX_PAGES} pages. `create_delivery` looks before it
 * books, so an order booked elsewhere (the dashboard, the CLI, another agent) is not booked again.
 * @module
 */
import type { DeliveryClient } from '../client.js';
import { isAPIError } from '../core/errors.js';
import type { Task } from '../schemas/task.js';

/** Pages read per look-up. */
export const ORDER_LOOKUP_MAX_PAGES = 20;

const REGEX_SPECIAL = /[\\^$.*+?()[\]{}|/-]/g;

async function collect(
  client: DeliveryClient,
  orderNumber: string,
  search: { search: string; ignoreRegex: boolean },
  signal: AbortSignal | undefined,
): Promise<Task[]> {
  const found: Task[] = [];
  const listing = client.tasks.list(
    { ...search, sortBy: 'createdAt', sortOrder: -1 },
    { maxPages: ORDER_LOOKUP_MAX_PAGES, concurrency: 4, ...(signal === undefined ? {} : { signal }) },
  );
  for await (const task of listing) if (task.orderNumber === orderNumber) found.push(task);
  return found;
}

/**
 * Every task whose `orderNumber` is exactly `orderNumber`, newest first.
 * @throws {PaginationLimitError} past {@link ORDER_LOOKUP_MAX_PAGES} pages; request errors as they come.
 */
export async function tasksOfOrder(client: DeliveryClient, orderNumber: string, signal?: AbortSignal): Promise<Task[]> {
  try {
    const pattern = `^${orderNumber.replace(REGEX_SPECIAL, '\\$&')}$`;
    return await collect(client, orderNumber, { search: pattern, ignoreRegex: false }, signal);
  } catch (error) {
    if (!(isAPIError(error) && (error.status === 400 || error.status === 422))) throw error;
  }
  return collect(client, orderNumber, { search: orderNumber, ignoreRegex: true }, signal);
}
