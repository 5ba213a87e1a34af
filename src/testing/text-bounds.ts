/**
 * The mock's bound on a task's text fields (docs/testing.md): the contract states no length, and the mock
 * copies a task's text into every answer, every stored event and every webhook delivery, so it refuses one
 * longer than {@link MAX_TASK_TEXT_CHARS} with a 400 naming the field. @module
 */

/**
 * Longest text field of a task the mock accepts (customer name, number, address line, notes, …): 1,000
 * characters.
 */
export const MAX_TASK_TEXT_CHARS = 1000;

/**
 * Levels of objects and arrays searched for text (a task's deepest text, `addressDetails.toAddr.moreInfo.*`,
 * is at 4).
 */
const MAX_TEXT_DEPTH = 8;

/**
 * The path and length of the first text longer than {@link MAX_TASK_TEXT_CHARS} in `params`
 * (`customerName`, `deliveryLocation.fullAddress[1]`), else `undefined`.
 */
export function overlongText(
  params: unknown,
): { readonly path: string; readonly length: number } | undefined {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value: params, path: '', depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path, depth } = next;
    if (typeof value === 'string') {
      if (value.length > MAX_TASK_TEXT_CHARS)
        return { path: path === '' ? 'body' : path, length: value.length };
    } else if (typeof value === 'object' && value !== null && depth < MAX_TEXT_DEPTH) {
      const entries = Object.entries(value).reverse();
      for (const [key, item] of entries) {
        const step = Array.isArray(value) ? `[${key}]` : path === '' ? key : `.${key}`;
        pending.push({ value: item, path: `${path}${step}`, depth: depth + 1 });
      }
    }
  }
  return undefined;
}
