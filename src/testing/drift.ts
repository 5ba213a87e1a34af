/**
 * The `drift` fault (README "Schema drift", "Testing your integration"): the mock processes the request,
 * then answers a body whose fields drift from their documented types the way a real service's may, so an
 * application's own tests can see its code survive a drifting service.
 *
 * | mutation | what changes in the answer |
 * |---|---|
 * | `numbers-as-text` | every number becomes its decimal text (`29.3` → `"29.3"`, `page: 2` → `"2"`) |
 * | `money-as-numbers` | the decimal-text money fields (`totalAmount`, `estimatedPrice`) become numbers (`"12.500"` → `12.5`) |
 * | `booleans-as-text` | every boolean becomes `"true"` or `"false"` |
 * | `booleans-as-numbers` | every boolean becomes `1` or `0` |
 * | `unknown-fields` | every object gains a field the contract does not list (`x-drift`) |
 *
 * Every mutation is one the SDK reads back to the documented type (README "Schema drift"), so a client
 * with the default `validation: 'tolerant'` sees the same values, and its `onDrift` sees each field.
 * @module
 */
import { jsonResponse } from './responses.js';

/** One way the `drift` fault changes an answer; see this module's table. */
export type MockDriftMutation =
  | 'numbers-as-text'
  | 'money-as-numbers'
  | 'booleans-as-text'
  | 'booleans-as-numbers'
  | 'unknown-fields';

/** Every mutation, in the order they apply; the default of a `drift` fault. */
export const DRIFT_MUTATIONS: readonly MockDriftMutation[] = [
  'money-as-numbers',
  'numbers-as-text',
  'booleans-as-text',
  'booleans-as-numbers',
  'unknown-fields',
];

/** The decimal-text money fields of the contract (Task `totalAmount`, webhook `estimatedPrice`). */
const MONEY_FIELDS = new Set(['totalAmount', 'estimatedPrice']);

/** `value` with `mutations` applied at every level (a new value; `value` is not changed). */
export function driftedValue(value: unknown, mutations: ReadonlySet<MockDriftMutation>, key?: string): unknown {
  if (Array.isArray(value)) return value.map((item) => driftedValue(item, mutations));
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [name, member] of Object.entries(value)) copy[name] = driftedValue(member, mutations, name);
    if (mutations.has('unknown-fields')) copy['x-drift'] = { note: 'a field the contract does not list' };
    return copy;
  }
  if (typeof value === 'string' && key !== undefined && MONEY_FIELDS.has(key) && mutations.has('money-as-numbers')) {
    const amount = Number(value);
    return value.trim() !== '' && Number.isFinite(amount) ? amount : value;
  }
  if (typeof value === 'number' && mutations.has('numbers-as-text') && !(key !== undefined && MONEY_FIELDS.has(key))) {
    return String(value);
  }
  if (typeof value === 'boolean') {
    if (mutations.has('booleans-as-text')) return String(value);
    if (mutations.has('booleans-as-numbers')) return value ? 1 : 0;
  }
  return value;
}

/**
 * The answer of a `drift` fault: `response`'s status and headers with its JSON body drifted by
 * `mutations` (default: every one). An error answer or a body that is not JSON is passed on unchanged.
 */
export async function driftedResponse(
  response: Response,
  mutations: readonly MockDriftMutation[] = DRIFT_MUTATIONS,
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
