/**
 * `GET tasks`: list parameters and the page envelope; OpenAPI `listTasks` and
 * README "What the spec leaves open, and what we chose" (page size at most 10).
 * @module
 */
import * as z from 'zod/mini';
import { integer, rule } from './checks.js';
import { wellFormedText } from './primitives.js';
import { Task } from './task.js';

/** Largest page the service serves (README "What the spec leaves open, and what we chose"). */
export const MAX_PAGE_SIZE = 10;

/** Sort fields the mock understands; the service's own list is not documented, so any string is sent. */
export type TaskSortField = 'createdAt' | 'updatedAt' | 'orderNumber' | 'status' | 'customerName' | (string & {});

/** The fields of the query of `GET tasks`. */
const LIST_QUERY = {
  /** Items per page, integer 1…10. Default 10 (the SDK sends 10 when omitted). */
  limit: z.optional(integer(1, MAX_PAGE_SIZE)),
  /** 1-based page to start from. Default 1. */
  page: z.optional(integer(1)),
  /** Search term. Matched literally unless `ignoreRegex: false` is given. */
  search: z.optional(z.string()),
  /** Field to sort by (any string is sent; see {@link TaskSortField}). */
  sortBy: z.optional(z.string() as z.ZodMiniType<TaskSortField, string>),
  /** `false` treats `search` as a regular expression. Default `true` in this SDK (literal search). */
  ignoreRegex: z.optional(z.boolean()),
  /** `1` ascending (default), `-1` descending. */
  sortOrder: z.optional(
    z
      .number()
      .check(rule((order) => order === 1 || order === -1, 'Expected one of 1, -1', { enum: [1, -1] })) as z.ZodMiniType<
      1 | -1,
      1 | -1
    >,
  ),
};

/** The query of `GET tasks` (what is sent). Text with unpaired surrogates is rejected (the `wellFormedText` check). */
export const TaskListParams = /* @__PURE__ */ z.strictObject(LIST_QUERY).check(wellFormedText);

// ISO 8601: a date (UTC midnight) or a date-time with `Z` or an offset; a time without an offset is refused
// (its zone would be the machine's).
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/i;

/** The time of a creation bound, ms since the epoch; `undefined` for a value that is not one. */
export function instantOf(value: unknown): number | undefined {
  if (value instanceof Date) {
    const time = value.getTime();
    return Number.isFinite(time) ? time : undefined;
  }
  if (typeof value !== 'string' || !ISO_INSTANT.test(value)) return undefined;
  const time = Date.parse(value);
  if (!Number.isFinite(time)) return undefined;
  // `Date.parse` rolls 2026-02-30 over to March: the calendar date must read back unchanged.
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  return calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === day ? time : undefined;
}

const CreationBound = z.custom<string | Date>((value) => instantOf(value) !== undefined, {
  message: 'Expected an ISO 8601 date, a date-time with Z or an offset, or a valid Date',
});

/**
 * Parameters of `client.tasks.list`: the query of `GET tasks`, and the creation window, which is applied
 * on the client and never sent (README "Pagination"; `docs/pagination.md` "By creation time").
 */
export const TaskListRequestParams = z
  .strictObject({
    ...LIST_QUERY,
    /**
     * Only tasks created at or after this time: ISO 8601 text (a date is UTC midnight; a date-time needs `Z`
     * or an offset) or a `Date`.
     */
    createdAfter: z.optional(CreationBound),
    /** Only tasks created before this time (exclusive); the same forms as `createdAfter`. */
    createdBefore: z.optional(CreationBound),
  })
  .check(
    wellFormedText,
    z.superRefine((params, context) => {
      const after = instantOf(params.createdAfter);
      const before = instantOf(params.createdBefore);
      if (after !== undefined && before !== undefined && after > before) {
        context.addIssue({
          code: 'custom',
          path: ['createdBefore'],
          message: 'Expected createdBefore to be at or after createdAfter',
          input: params.createdBefore,
        });
      }
    }),
  );

/**
 * Parameters of `client.tasks.list`: the query of `GET tasks` ({@link TaskListParams}) plus `createdAfter`
 * and `createdBefore`, applied on the client.
 */
export type TaskListParams = z.input<typeof TaskListRequestParams>;

/**
 * One page of tasks as the service sends it; all five fields required (spec), and load-bearing (README
 * "Schema drift"): numeric text is read as the number, anything else fails the page.
 */
export const TaskListResponse = z.looseObject({
  /** The page's tasks. */
  tasks: z.array(Task),
  /** Current page, from 1. */
  page: integer(),
  /** Items per page. */
  limit: integer(),
  /** Number of pages (0 when nothing matches). */
  totalPages: integer(),
  /** Total number of matching tasks. */
  total: integer(),
});
export type TaskListResponse = z.infer<typeof TaskListResponse>;
