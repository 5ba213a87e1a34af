/**
 * `GET tasks/branches`: the source of valid `selectedBranch` names. The spec does not show its
 * shape, so the SDK reads a bare array, or an object holding one (`{ branches: [...] }` as the mock
 * sends, `{ data: [...] }`, or any property whose value is an array of branch-like entries), of objects
 * with a `name` or of strings, and always returns `Branch[]`; anything else reads as no branches and is
 * reported as drift (README "Schema drift").
 * @module
 */
import * as z from 'zod/mini';
import { type Drift, readTolerantly, typeName } from './tolerant-read.js';

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

/** The properties an object answer is looked in first, in order; then any other one. */
const LIST_KEYS = ['branches', 'data'];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string, or an object with a `name` (a string, or a number read as its text). */
function isBranchLike(entry: unknown): boolean {
  if (typeof entry === 'string') return true;
  return isPlainObject(entry) && (typeof entry.name === 'string' || typeof entry.name === 'number');
}

/**
 * The list of branches in a body and the path it was found at: the body itself when it is an array;
 * else `branches`, then `data`, then the first other property whose value is an array holding a
 * branch-like entry, then the first empty array.
 */
function branchList(body: unknown): { list: unknown[]; path: string } | undefined {
  if (Array.isArray(body)) return { list: body, path: '' };
  if (!isPlainObject(body)) return undefined;
  for (const key of LIST_KEYS) {
    const value = body[key];
    if (Array.isArray(value)) return { list: value, path: key };
  }
  const keys = Object.keys(body);
  const found =
    keys.find((key) => {
      const value = body[key];
      return Array.isArray(value) && value.some(isBranchLike);
    }) ?? keys.find((key) => Array.isArray(body[key]) && (body[key] as unknown[]).length === 0);
  return found === undefined ? undefined : { list: body[found] as unknown[], path: found };
}

/**
 * Reads any body of `GET tasks/branches` (see this module): the branches found, and the drift met —
 * no list at all (path `branches`, `action: 'omitted'`), an entry left out (neither a string nor an
 * object with a usable `name`), a field coerced (a numeric `name` or `id` read as text). Never throws.
 */
export function readBranches(body: unknown): { branches: Branch[]; drifts: Drift[] } {
  const drifts: Drift[] = [];
  const found = branchList(body);
  if (found === undefined) {
    const held = isPlainObject(body) ? body.branches : body;
    drifts.push({ path: 'branches', expected: 'array', received: typeName(held), action: 'omitted' });
    return { branches: [], drifts };
  }
  const branches: Branch[] = [];
  const prefix = found.path === '' ? '' : `${found.path}.`;
  found.list.forEach((entry: unknown, index) => {
    if (typeof entry === 'string') {
      branches.push({ name: entry });
      return;
    }
    const own: Drift[] = [];
    const read = readTolerantly(Branch, entry, own);
    for (const drift of own) {
      drifts.push({ ...drift, path: `${prefix}${index}${drift.path === '' ? '' : `.${drift.path}`}` });
    }
    if (read.ok) branches.push(read.value as Branch);
  });
  return { branches, drifts };
}

/**
 * Normalises any body of `GET tasks/branches` to `Branch[]` (strings become `{ name }`), as
 * `client.branches.list()` does (`readBranches`): entries without a usable `name` are left out,
 * and a body holding no list reads as no branches.
 */
export function toBranches(body: unknown): Branch[] {
  return readBranches(body).branches;
}
