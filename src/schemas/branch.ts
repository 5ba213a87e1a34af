/**
 * `GET tasks/branches`: an array (bare or in an object) of names or objects, read as `Branch[]` by
 * {@link readBranches}. The schema of every accepted shape is `BranchListResponse`, of the schemas entry.
 * @module
 */
import * as z from 'zod/mini';
import { type Drift, readTolerantly, typeName } from './tolerant-read.js';

/** A pickup branch; `name` is the value for `selectedBranch`. Other fields are kept. */
export const Branch = z.looseObject({
  name: z.string(),
  id: z.optional(z.string()),
});
export type Branch = z.infer<typeof Branch>;

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
 * The list in a body and its path: the body, else `branches`, `data`, any array of branch-like entries, any
 * empty one.
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
 * Reads any body of `GET tasks/branches`: the branches (`value`; strings become `{ name }`, entries without
 * a name are left out) and the drift met. Never throws.
 */
export function readBranches(body: unknown): { value: Branch[]; drifts: Drift[] } {
  const drifts: Drift[] = [];
  const found = branchList(body);
  if (found === undefined) {
    const held = isPlainObject(body) ? body.branches : body;
    drifts.push({ path: 'branches', expected: 'array', received: typeName(held), action: 'omitted' });
    return { value: [], drifts };
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
  return { value: branches, drifts };
}
