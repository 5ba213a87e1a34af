/**
 * An order's delivery, created exactly once with the order number as the key (README "Exactly-once
 * creation"). The service has no idempotency key and every task costs a fee: the SDK sends one POST for
 * concurrent creates of one order number, and after an ambiguous failure (a timeout, a dropped answer)
 * looks the order up instead of sending again. The shop only has to always pass the order number.
 */
import { type DeliveryClient, TaskCreationOutcomeUnknownError } from 'delivery-task-sdk';
import type { Order } from './orders.js';

/**
 * Creates the delivery of `order` unless it already has one, and records the task on the order.
 * @throws {TaskCreationOutcomeUnknownError} when the SDK could not tell whether the task exists (the order
 * is marked `unknown`; calling again looks the order number up before anything is sent).
 * @throws the SDK's other errors (`InsufficientBalanceError`, `RequestValidationError`, …) as they are.
 */
export async function deliverOrder(client: DeliveryClient, order: Order): Promise<Order> {
  if (order.delivery.state === 'created') return order;
  try {
    const task = await client.tasks.create({
      orderNumber: order.orderNumber,
      customerName: order.customerName,
      customerNumber: order.customerNumber,
      collectCash: order.collectCash,
      // KWD text from the order's lines: never a float on the wire.
      ...(order.collectCash ? { totalAmount: order.total } : {}),
      deliveryLocation: order.destination,
    });
    // Two clicks that joined one create both land here with the same task (a webhook may have come first).
    if (order.delivery.taskId === undefined) {
      order.delivery.taskId = task.id;
      if (task.status !== undefined) order.delivery.status = task.status;
      order.delivery.confirmed = true;
    }
    order.delivery.state = 'created';
    return order;
  } catch (error) {
    if (error instanceof TaskCreationOutcomeUnknownError) order.delivery.state = 'unknown';
    throw error;
  }
}
