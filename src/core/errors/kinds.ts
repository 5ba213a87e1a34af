/**
 * The kind chain that lets `instanceof` recognise errors from any copy of the SDK (ESM and CommonJS in
 * one process, or two installed versions): global symbols, filled from the classes themselves.
 * @module
 */

/** Set (to `true`) on every SDK error, by every copy and version of the SDK. */
export const BRAND = Symbol.for('delivery-task-sdk.error');
/** The error's kind and its ancestors', e.g. `['NotFoundError', 'APIError', 'DeliveryError']`. */
export const KINDS = Symbol.for('delivery-task-sdk.error.kinds');

/**
 * The kinds of `errorClass` and of its ancestors, nearest first, read up its class chain: every SDK class
 * owns a static `errorKind`; a class without its own (an app's subclass) adds none.
 */
export function kindsOf(errorClass: unknown): readonly string[] {
  const kinds: string[] = [];
  for (let current = errorClass; typeof current === 'function'; current = Object.getPrototypeOf(current)) {
    if (Object.hasOwn(current, 'errorKind'))
      kinds.push((current as unknown as { errorKind: string }).errorKind);
  }
  return Object.freeze(kinds);
}

/** Whether `value` is an SDK error of `kind` or of one of its subclasses, from any copy of the SDK. */
export function hasKind(value: unknown, kind: string): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const branded = value as Record<symbol, unknown>;
  const kinds = branded[KINDS];
  if (Array.isArray(kinds)) return kinds.includes(kind);
  if (branded[BRAND] !== true) return false;
  // A copy older than the kind chain (0.1.0) brands its errors only: every one is a `DeliveryError`, and
  // the others are judged by the names of its own class chain, or its `name` when a bundler renamed them.
  if (kind === 'DeliveryError' || (value as { name?: unknown }).name === kind) return true;
  for (let proto = Object.getPrototypeOf(value); proto !== null; proto = Object.getPrototypeOf(proto)) {
    if (
      Object.hasOwn(proto, 'constructor') &&
      (proto.constructor as { name?: unknown } | undefined)?.name === kind
    ) {
      return true;
    }
  }
  return false;
}
