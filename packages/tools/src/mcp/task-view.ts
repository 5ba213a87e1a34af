/** A task as the MCP server shows it to the model (docs/mcp.md). */

import type { Task } from 'delivery-task-sdk';
import * as z from 'zod/mini';
import { cut } from './text.js';

/** Longest text field shown, characters; longer text is cut with `…`. */
export const MAX_FIELD_CHARS = 2000;

/** Status history entries shown, the most recent ones. */
export const MAX_HISTORY_ENTRIES = 20;

const text = () => z.optional(z.string());

/** A point in decimal degrees. */
const Point = z.object({ latitude: z.number(), longitude: z.number() });

/** The output schema of a task in tool results. */
export const TaskView = z.object({
  id: text().check(z.describe('Task id (get_task, task://{id})')),
  orderNumber: text(),
  status: text().check(z.describe('pending, requested, accepted, arrived, started, delivered, …')),
  statusHistory: z.optional(z.array(z.object({ status: text(), timestamp: text() }))),
  customerName: text(),
  customerNumber: text().check(
    z.describe('Customer phone; all but the last 3 digits masked unless the policy reveals it'),
  ),
  alternateCustomerNumber: text(),
  deliveryAddress: text(),
  deliveryZone: text(),
  additionalAddressDetail: text(),
  pickupAddress: text(),
  pickupLocation: z.optional(Point),
  specialNotes: text(),
  collectCash: z.optional(z.boolean()),
  totalAmountKwd: text().check(z.describe('Amount to collect from the customer, KWD')),
  feeKwd: text().check(z.describe('Delivery fee, KWD, when the service reports it')),
  customPickup: z.optional(z.boolean()),
  travelDetail: z.optional(
    z.object({
      totalDistance: z.optional(z.number()),
      duration: z.optional(z.number()),
      durationInTraffic: z.optional(z.number()),
    }),
  ),
  driver: z.optional(z.object({ name: text(), phone: text(), trackingLink: text() })),
  deliveryId: text(),
  deliveryDispatched: z.optional(z.boolean()),
  deliveryTime: text(),
  completedTime: text(),
  createdAt: text(),
  updatedAt: text(),
});
export type TaskView = z.infer<typeof TaskView>;

/** How tasks are shown. */
export interface TaskViewOptions {
  /** Show customer phone numbers in full. */
  readonly revealCustomerPhones: boolean;
}

/**
 * A run of at least 7 digits, possibly split by spaces or dashes, with an optional `+`: a phone number in
 * free text.
 */
const PHONE_IN_TEXT = /\+?\d(?:[ -]?\d){6,}/g;

/** A phone number with every digit but the last 3 replaced by `*`: `+96550001234` → `+********234`. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '').length;
  let seen = 0;
  return phone.replace(/\d/g, (digit) => (++seen > digits - 3 ? digit : '*'));
}

/** `value` cut to {@link MAX_FIELD_CHARS}; the task was redacted before (see `Session.view`). */
function bounded(value: string): string {
  return cut(value, MAX_FIELD_CHARS);
}

/** Copies the string fields of `source` named in `names` into `target`, bounded and, where asked, masked. */
function copyText(
  target: Record<string, unknown>,
  source: Record<string, unknown> | undefined,
  names: readonly string[],
  mask: (value: string) => string,
): void {
  for (const name of names) {
    const value = source?.[name];
    if (typeof value === 'string') target[name] = mask(bounded(value));
  }
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function finite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** The task as {@link TaskView}: see this module's documentation. */
export function taskView(task: Task, options: TaskViewOptions): TaskView {
  const source = record(task) ?? {};
  const keep = (value: string) => value;
  const phone = options.revealCustomerPhones ? keep : maskPhone;
  const inText = options.revealCustomerPhones
    ? keep
    : (value: string) => value.replace(PHONE_IN_TEXT, maskPhone);
  const view: Record<string, unknown> = {};
  copyText(view, source, ['id', 'orderNumber', 'status', 'deliveryZone', 'deliveryId'], keep);
  copyText(view, source, ['customerName', 'additionalAddressDetail', 'specialNotes'], inText);
  copyText(view, source, ['customerNumber', 'alternateCustomerNumber'], phone);
  copyText(view, source, ['deliveryTime', 'completedTime', 'createdAt', 'updatedAt'], keep);
  for (const name of ['collectCash', 'customPickup', 'deliveryDispatched'] as const) {
    if (typeof source[name] === 'boolean') view[name] = source[name];
  }
  if (typeof source.totalAmount === 'string') view.totalAmountKwd = bounded(source.totalAmount);
  if (typeof source.estimatedPrice === 'string') view.feeKwd = bounded(source.estimatedPrice);
  const addresses = record(source.addressDetails);
  const to = record(addresses?.toAddr)?.address;
  const from = record(addresses?.fromAddr)?.address;
  if (typeof to === 'string') view.deliveryAddress = inText(bounded(to));
  if (typeof from === 'string') view.pickupAddress = bounded(from);
  const pickup = record(source.pickupLocation);
  if (finite(pickup?.latitude) && finite(pickup?.longitude)) {
    view.pickupLocation = { latitude: pickup.latitude, longitude: pickup.longitude };
  }
  const travel = record(source.travelDetail);
  if (travel !== undefined) {
    const trip: Record<string, number> = {};
    for (const name of ['totalDistance', 'duration', 'durationInTraffic'] as const) {
      if (finite(travel[name])) trip[name] = travel[name];
    }
    view.travelDetail = trip;
  }
  const driver = record(source.driver);
  if (driver !== undefined) {
    const shown: Record<string, unknown> = {};
    copyText(shown, driver, ['name', 'phone', 'trackingLink'], keep);
    view.driver = shown;
  }
  if (Array.isArray(source.statusHistory)) {
    view.statusHistory = source.statusHistory.slice(-MAX_HISTORY_ENTRIES).map((entry) => {
      const shown: Record<string, unknown> = {};
      copyText(shown, record(entry), ['status', 'timestamp'], keep);
      return shown;
    });
  }
  return view as TaskView;
}
