/**
 * The listing job: walks every task of every page with `for await` (README "Pagination") and brings each
 * order's delivery status up to date, catching the changes whose webhook never arrived.
 */
import type { DeliveryClient } from 'delivery-task-sdk';
import { isNewerStatus, type OrderBook } from './orders.js';

export interface ListingReport {
  /** Tasks listed, each once. */
  readonly tasks: number;
  /** Tasks per status. */
  readonly byStatus: Readonly<Record<string, number>>;
  /** Orders whose delivery status this walk changed. */
  readonly updated: number;
}

/** Lists every task (newest first) and updates the orders they belong to. */
export async function syncAllTasks(
  client: DeliveryClient,
  orders: OrderBook,
  signal?: AbortSignal,
): Promise<ListingReport> {
  let tasks = 0;
  let updated = 0;
  const byStatus: Record<string, number> = {};
  const list = client.tasks.list({ sortBy: 'createdAt', sortOrder: -1 }, signal ? { signal } : {});
  for await (const task of list) {
    tasks += 1;
    const status = task.status ?? 'unknown';
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    const order = task.orderNumber === undefined ? undefined : orders.get(task.orderNumber);
    if (order === undefined || task.id === undefined) continue;
    if (order.delivery.taskId !== undefined && order.delivery.taskId !== task.id) continue; // another delivery of the order
    const known = order.delivery.state === 'created';
    if (!known || (task.status !== undefined && isNewerStatus(order.delivery.status, task.status))) {
      // An order whose create ended "unknown" is found here too: the task exists, so it is created.
      order.delivery.state = 'created';
      order.delivery.taskId = task.id;
      if (task.status !== undefined) order.delivery.status = task.status;
      order.delivery.confirmed = true;
      updated += 1;
    }
  }
  return { tasks, byStatus, updated };
}
