/**
 * `GET tasks/branches`: the source of valid `selectedBranch` names. The spec does not show its
 * shape, so the SDK accepts `{ branches: [...] }`, `{ data: [...] }` or a bare array, of objects with
 * a `name` or of strings, and always returns `Branch[]`.
 * @module
 */
import * as z from 'zod/mini';

/** A pickup branch; `name` is the value for `selectedBranch`. Other fields are kept. */
export const Branch = z.looseObject({
  /** Branch name, the value for selectedBranch. */
  name: z.string(),
  /** Branch identifier. */
  id: z.optional(z.string()),
});
export type Branch = z.infer<typeof Branch>;

const BranchArray = z.array(z.union([Branch, z.string()]));

/** Every accepted response shape (validated as is; {@link toBranches} normalises it). */
export const BranchListResponse = z.union([
  BranchArray,
  z.looseObject({ branches: BranchArray }),
  z.looseObject({ data: BranchArray }),
]);
export type BranchListResponse = z.infer<typeof BranchListResponse>;

/**
 * Normalises any accepted shape to `Branch[]` (strings become `{ name }`). Tolerant of unchecked bodies
 * (validation `'warn'`/`'off'`): entries without a string `name` are left out, anything else reads as no
 * branches.
 */
export function toBranches(body: unknown): Branch[] {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const list = Array.isArray(body) ? body : Array.isArray(record.branches) ? record.branches : record.data;
  if (!Array.isArray(list)) return [];
  const branches: Branch[] = [];
  for (const entry of list) {
    if (typeof entry === 'string') branches.push({ name: entry });
    else if (typeof entry === 'object' && entry !== null && typeof (entry as { name?: unknown }).name === 'string') {
      branches.push(entry as Branch);
    }
  }
  return branches;
}
