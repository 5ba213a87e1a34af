/**
 * `GET tasks/branches`: the source of valid `selectedBranch` names. The spec does not show its
 * shape, so the SDK accepts `{ branches: [...] }`, `{ data: [...] }` or a bare array, of objects with
 * a `name` or of strings, and always returns `Branch[]`.
 * @module
 */
import * as z from 'zod';

/** A pickup branch; `name` is the value for `selectedBranch`. Other fields are kept. */
export const Branch = z.looseObject({
  name: z.string(),
  id: z.string().optional(),
});
export type Branch = z.infer<typeof Branch>;

const BranchItem = z.union([Branch, z.string().transform((name): Branch => ({ name }))]);
const BranchArray = z.array(BranchItem);

/** Every accepted response shape, normalised to `Branch[]`. */
export const BranchListResponse = z.union([
  BranchArray,
  z.looseObject({ branches: BranchArray }).transform((body) => body.branches),
  z.looseObject({ data: BranchArray }).transform((body) => body.data),
]);
export type BranchListResponse = z.output<typeof BranchListResponse>;
