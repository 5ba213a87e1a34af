/**
 * How a task reads in human output: one table row (`tasks list`) or a block of labelled lines
 * (`tasks get`, `tasks create`). Money through `kwd.format`, times in UTC.
 */
import type { Task } from 'delivery-task-sdk';
import { ABSENT, kwdCell, labelled, type TableColumn, textCell, timeCell } from '../format.js';

/** Columns of the task table. */
export const TASK_COLUMNS: readonly TableColumn[] = [
  { title: 'id' },
  { title: 'order' },
  { title: 'status' },
  { title: 'collect', align: 'right' },
  { title: 'created (UTC)' },
];

/**
 * The delivery fee of a task in KWD, when the service sends it: the API form of a task has no fee field
 * in the spec; the webhook form carries it as `estimatedPrice` (3-decimal text), which a task (a loose
 * object) may carry too. `undefined` otherwise: the table has no fee column, and `tasks get` shows a fee
 * only when the service gave one.
 */
export function feeOf(task: Task): unknown {
  return (task as Record<string, unknown>).estimatedPrice;
}

/** One row of the task table: id, order number, status, amount to collect, creation time. */
export function taskRow(task: Task): string[] {
  return [
    textCell(task.id),
    textCell(task.orderNumber),
    textCell(task.status),
    kwdCell(task.totalAmount),
    timeCell(task.createdAt),
  ];
}

/** A task as labelled lines: identity, status, money, customer, addresses, driver, times and history. */
export function taskDetails(task: Task): string[] {
  const driver = task.driver;
  const driverText =
    driver === undefined
      ? undefined
      : [driver.name, driver.phone, driver.trackingLink]
          .filter((part) => typeof part === 'string' && part !== '')
          .map((part) => textCell(part))
          .join('  ') || ABSENT;
  const customer = [task.customerName, task.customerNumber].filter(
    (part) => typeof part === 'string' && part !== '',
  );
  const history = (task.statusHistory ?? []).map(
    (entry) => `${timeCell(entry.timestamp)}  ${textCell(entry.status)}`,
  );
  const collect =
    task.totalAmount === undefined
      ? undefined
      : `${kwdCell(task.totalAmount)}${task.collectCash === true ? ' (cash on delivery)' : ''}`;
  return labelled([
    ['id', textCell(task.id)],
    ['order', textCell(task.orderNumber)],
    ['status', textCell(task.status)],
    ['fee', feeOf(task) === undefined ? undefined : kwdCell(feeOf(task))],
    ['collect', collect],
    ['customer', customer.length === 0 ? undefined : customer.map((part) => textCell(part)).join('  ')],
    ['pickup', optionalText(task.addressDetails?.fromAddr?.address)],
    ['deliver to', optionalText(task.addressDetails?.toAddr?.address)],
    ['driver', driverText],
    ['created', timeCell(task.createdAt)],
    ['updated', timeCell(task.updatedAt)],
    ...history.map((line, index) => [index === 0 ? 'history' : '', line] as const),
  ]);
}

function optionalText(value: unknown): string | undefined {
  return value === undefined || value === '' ? undefined : textCell(value);
}
