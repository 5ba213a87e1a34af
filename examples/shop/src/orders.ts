/**
 * The shop's orders: what a customer bought, its total in KWD, and the state of its delivery.
 *
 * Money is KWD text with 3 decimals ('12.500') from the order form to the service: prices are read with
 * `kwd.normalize`, totals made with `kwd.multiply` and `kwd.add`, never with floating-point arithmetic.
 */
import { kwd, type TaskStatus } from 'delivery-task-sdk';

/** One line of an order: a price in KWD text and a whole quantity. */
export interface OrderLine {
  readonly name: string;
  /** KWD, 3 decimals, as text: `'1.250'`. */
  readonly price: string;
  readonly quantity: number;
}

/** Where the order goes. */
export interface Destination {
  readonly latitude: number;
  readonly longitude: number;
  readonly fullAddress?: string[];
}

/** The delivery of an order, as the shop last heard of it. */
export interface Delivery {
  /** `none` until the task is created; `unknown` when the create's outcome could not be told. */
  state: 'none' | 'created' | 'unknown';
  taskId?: string;
  /** The task's status (`pending`, …, `delivered`), from the create, a webhook or the listing job. */
  status?: TaskStatus | (string & {});
  /** True once the status was read back from the service (`GET tasks/{id}` or a listing), not only a webhook body. */
  confirmed: boolean;
}

export interface Order {
  readonly orderNumber: string;
  readonly customerName: string;
  readonly customerNumber: string;
  readonly lines: readonly OrderLine[];
  /** KWD text: the sum of price × quantity over the lines. */
  readonly total: string;
  /** Cash on delivery: the driver collects `total`. */
  readonly collectCash: boolean;
  readonly destination: Destination;
  readonly delivery: Delivery;
}

/** A body the order route refuses, with the field at fault. */
export class OrderInputError extends Error {
  override readonly name = 'OrderInputError';
}

/** The total of `lines` in KWD text, exact to the fils. */
export function orderTotal(lines: readonly OrderLine[]): string {
  return kwd.add('0', ...lines.map((line) => kwd.multiply(line.price, line.quantity)));
}

function text(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '') throw new OrderInputError(`${field}: expected text`);
  return value;
}

function line(value: unknown, index: number): OrderLine {
  if (typeof value !== 'object' || value === null)
    throw new OrderInputError(`lines[${index}]: expected an object`);
  const { name, price, quantity } = value as Record<string, unknown>;
  if (typeof name !== 'string') throw new OrderInputError(`lines[${index}].name: expected text`);
  // A number here has already been through floating point: ask for text such as "1.250".
  if (typeof price !== 'string')
    throw new OrderInputError(`lines[${index}].price: expected KWD as text, e.g. "1.250"`);
  if (!kwd.isValid(price) || kwd.compare(price, 0) < 0) {
    throw new OrderInputError(`lines[${index}].price: not a KWD amount with at most 3 decimals`);
  }
  if (typeof quantity !== 'number' || !Number.isSafeInteger(quantity) || quantity < 1 || quantity > 1000) {
    throw new OrderInputError(`lines[${index}].quantity: expected a whole number from 1 to 1000`);
  }
  return { name, price: kwd.normalize(price), quantity };
}

/** Reads the body of `POST /orders`. @throws {OrderInputError} naming the first field at fault. */
export function parseOrder(body: unknown): Order {
  if (typeof body !== 'object' || body === null) throw new OrderInputError('body: expected a JSON object');
  const fields = body as Record<string, unknown>;
  const orderNumber = text(fields, 'orderNumber');
  if (!/^[A-Za-z0-9-]{1,64}$/.test(orderNumber)) {
    throw new OrderInputError('orderNumber: letters, digits and dashes, at most 64');
  }
  const rawLines = fields.lines;
  if (!Array.isArray(rawLines) || rawLines.length === 0 || rawLines.length > 100) {
    throw new OrderInputError('lines: expected 1 to 100 lines');
  }
  const lines = rawLines.map(line);
  const destination = fields.destination as Record<string, unknown> | undefined;
  const { latitude, longitude, fullAddress } = destination ?? {};
  if (typeof latitude !== 'number' || typeof longitude !== 'number') {
    throw new OrderInputError('destination: expected { latitude, longitude }');
  }
  return {
    orderNumber,
    customerName: text(fields, 'customerName'),
    customerNumber: text(fields, 'customerNumber'),
    lines,
    total: orderTotal(lines),
    collectCash: fields.collectCash === true,
    destination: {
      latitude,
      longitude,
      ...(Array.isArray(fullAddress) && fullAddress.every((part) => typeof part === 'string')
        ? { fullAddress: fullAddress as string[] }
        : {}),
    },
    delivery: { state: 'none', confirmed: false },
  };
}

/** The shop's order book, in memory (a database in a real shop). */
export class OrderBook {
  readonly #orders = new Map<string, Order>();

  /** Adds `order`, or returns the one already kept under its number (a second click places nothing new). */
  add(order: Order): Order {
    const existing = this.#orders.get(order.orderNumber);
    if (existing) return existing;
    this.#orders.set(order.orderNumber, order);
    return order;
  }

  get(orderNumber: string): Order | undefined {
    return this.#orders.get(orderNumber);
  }

  /** The order whose delivery is task `taskId`. */
  byTask(taskId: string): Order | undefined {
    for (const order of this.#orders.values()) if (order.delivery.taskId === taskId) return order;
    return undefined;
  }

  all(): Order[] {
    return [...this.#orders.values()];
  }
}

/** The statuses along a delivery, in order (the spec's lifecycle); the last four end a task. */
const PATH = [
  'pending',
  'requested',
  'accepted',
  'inprogress',
  'pickup_location_reached',
  'pickedup',
  'enroute',
];
const FINAL = ['delivered', 'cancelled', 'rejected', 'failed'];

/**
 * True when `next` may replace `current`: a webhook and the listing job can bring the same task's statuses
 * in either order, and a status read earlier must never overwrite a later one.
 */
export function isNewerStatus(current: string | undefined, next: string): boolean {
  if (current === undefined) return true;
  if (current === next || FINAL.includes(current)) return false;
  if (FINAL.includes(next)) return true;
  const from = PATH.indexOf(current);
  const to = PATH.indexOf(next);
  return from === -1 || to === -1 || to > from;
}
