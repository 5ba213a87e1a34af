/**
 * The tasks that already carry an order number, read with the public `client.tasks.findByOrderNumber`
 * (exact matches, newest first, at most {@link ORDER_LOOKUP_MAX_PAGES} list requests).
 */
import type { DeliveryClient } from 'delivery-task-sdk';
import type { TaskWithId } from 'delivery-task-sdk/schemas';

/** List requests per look-up. */
export const ORDER_LOOKUP_MAX_PAGES = 20;

/**
 * Every task whose `orderNumber` is exactly `orderNumber`, newest first.
 * @throws {PaginationLimitError} past {@link ORDER_LOOKUP_MAX_PAGES} requests; request errors as they come.
 */
export function tasksOfOrder(
  client: DeliveryClient,
  orderNumber: string,
  signal?: AbortSignal,
): Promise<TaskWithId[]> {
  return client.tasks.findByOrderNumber(orderNumber, {
    maxPages: ORDER_LOOKUP_MAX_PAGES,
    ...(signal === undefined ? {} : { signal }),
  });
}
