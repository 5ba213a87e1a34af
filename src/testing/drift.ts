/** The `drift` fault: fields off their documented types (README "Schema drift"; docs/testing.md). @module */
import { jsonResponse } from './responses.js';

/** One way the `drift` fault changes an answer. */
export type MockDriftMutation =
  | 'numbers-as-text'
  | 'money-as-numbers'
  | 'booleans-as-text'
  | 'booleans-as-numbers'
  | 'unknown-fields'
  | 'times-without-zone';

/** Every mutation, in the order they apply. */
export const DRIFT_MUTATIONS: readonly MockDriftMutation[] = [
  'money-as-numbers',
  'numbers-as-text',
  'booleans-as-text',
  'booleans-as-numbers',
  'unknown-fields',
  'times-without-zone',
];

/**
 * The default of a `drift` fault: every mutation of a field's type (`times-without-zone` changes a value).
 */
export const DEFAULT_DRIFT_MUTATIONS: readonly MockDriftMutation[] = DRIFT_MUTATIONS.filter(
  (mutation) => mutation !== 'times-without-zone',
);

/** The decimal-text money fields of the contract (Task `totalAmount`, webhook `estimatedPrice`). */
const MONEY_FIELDS = new Set(['totalAmount', 'estimatedPrice']);

/** The date-time fields of the contract's answers and webhook bodies. */
const TIME_FIELDS = new Set([
  'createdAt',
  'updatedAt',
  'deliveryTime',
  'completedTime',
  'timestamp',
  'completed_at',
  'expiresAt',
]);

/** `2026-11-20T10:00:00.000Z` as the mock writes it: its UTC wall time, the part before `Z`. */
const UTC_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)Z$/;

export function driftedValue(
  value: unknown,
  mutations: ReadonlySet<MockDriftMutation>,
  key?: string,
): unknown {
  if (Array.isArray(value)) return value.map((item) => driftedValue(item, mutations));
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [name, member] of Object.entries(value)) copy[name] = driftedValue(member, mutations, name);
    if (mutations.has('unknown-fields')) copy['x-drift'] = { note: 'a field the contract does not list' };
    return copy;
  }
  if (
    typeof value === 'string' &&
    key !== undefined &&
    TIME_FIELDS.has(key) &&
    mutations.has('times-without-zone')
  ) {
    return UTC_TIME.exec(value)?.[1] ?? value;
  }
  if (
    typeof value === 'string' &&
    key !== undefined &&
    MONEY_FIELDS.has(key) &&
    mutations.has('money-as-numbers')
  ) {
    const amount = Number(value);
    return value.trim() !== '' && Number.isFinite(amount) ? amount : value;
  }
  if (
    typeof value === 'number' &&
    mutations.has('numbers-as-text') &&
    !(key !== undefined && MONEY_FIELDS.has(key))
  ) {
    return String(value);
  }
  if (typeof value === 'boolean') {
    if (mutations.has('booleans-as-text')) return String(value);
    if (mutations.has('booleans-as-numbers')) return value ? 1 : 0;
  }
  return value;
}

/**
 * `response` with its JSON body drifted (default {@link DEFAULT_DRIFT_MUTATIONS}); an error or non-JSON
 * answer passes unchanged.
 */
export async function driftedResponse(
  response: Response,
  mutations: readonly MockDriftMutation[] = DEFAULT_DRIFT_MUTATIONS,
): Promise<Response> {
  if (response.status >= 300) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, response);
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') headers[name] = value;
  });
  return jsonResponse(driftedValue(body, new Set(mutations)), response.status, headers);
}
