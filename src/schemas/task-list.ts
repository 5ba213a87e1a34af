/** `GET tasks`: list parameters and the page envelope; OpenAPI `listTasks`. @module */
import * as z from 'zod/mini';
import { integer, rule } from './checks.js';
import { MAX_PAGE_SIZE } from './page-size.js';
import { wellFormedText } from './primitives.js';
import { readServiceTime } from './service-time.js';
import { type Assert, type SameType, Task } from './task.js';

export { MAX_PAGE_SIZE };

/** Sort fields the mock understands; the service's own list is not documented, so any string is sent. */
export type TaskSortField =
  | 'createdAt'
  | 'updatedAt'
  | 'orderNumber'
  | 'status'
  | 'customerName'
  | (string & {});

/** Parameters of `client.tasks.list` (README "Pagination"). */
export type TaskListParams = {
  /** Tasks per page, integer 1…10. Default 10. */
  limit?: number | undefined;
  /** Page to start from, 1-based. Default 1. */
  page?: number | undefined;
  /** Search term, matched literally unless `ignoreRegex: false`. */
  search?: string | undefined;
  /** Field to sort by (any string is sent). */
  sortBy?: TaskSortField | undefined;
  /** `false` makes `search` a regular expression. Default `true` (literal search). */
  ignoreRegex?: boolean | undefined;
  /** `1` ascending (default), `-1` descending. */
  sortOrder?: 1 | -1 | undefined;
  /**
   * Only tasks created at or after this `Date` or ISO 8601 text, filtered on the client (docs/pagination.md).
   */
  createdAfter?: string | Date | undefined;
  /** Only tasks created before this time (exclusive); the same forms as `createdAfter`. */
  createdBefore?: string | Date | undefined;
};

const LIST_QUERY = {
  limit: z.optional(integer(1, MAX_PAGE_SIZE)),
  page: z.optional(integer(1)),
  search: z.optional(z.string()),
  sortBy: z.optional(z.string() as z.ZodMiniType<TaskSortField, TaskSortField>),
  ignoreRegex: z.optional(z.boolean()),
  sortOrder: z.optional(
    z
      .number()
      .check(
        rule((order) => order === 1 || order === -1, 'Expected one of 1, -1', { enum: [1, -1] }),
      ) as z.ZodMiniType<1 | -1, 1 | -1>,
  ),
};

/** Schema of the query of `GET tasks`: {@link TaskListParams} without the creation window. */
export const TaskListParams = /* @__PURE__ */ z.strictObject(LIST_QUERY).check(wellFormedText);

// A time without an offset is refused: its zone would be the machine's.
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/i;

/** The time of a creation bound, ms since the epoch; `undefined` for a value that is not one. */
export function instantOf(value: unknown): number | undefined {
  if (value instanceof Date) {
    const time = value.getTime();
    return Number.isFinite(time) ? time : undefined;
  }
  if (typeof value !== 'string' || !ISO_INSTANT.test(value)) return undefined;
  const read = readServiceTime(value);
  return read?.form === 'zoneless' ? undefined : read?.ms;
}

const CreationBound = z.custom<string | Date>((value) => instantOf(value) !== undefined, {
  message: 'Expected an ISO 8601 date, a date-time with Z or an offset, or a valid Date',
});

/** Schema of {@link TaskListParams}. */
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

/** One page of tasks; all five fields are required and load-bearing (README "Schema drift"). */
export interface TaskListResponse {
  /** The page's tasks. */
  tasks: Task[];
  /** This page, from 1. */
  page: number;
  /** Tasks per page. */
  limit: number;
  /** Number of pages (0 when nothing matches). */
  totalPages: number;
  /** Number of matching tasks. */
  total: number;
  [field: string]: unknown;
}
export const TaskListResponse = z.looseObject({
  tasks: z.array(Task),
  page: integer(),
  limit: integer(),
  totalPages: integer(),
  total: integer(),
});

export type TaskListSchemasMatch = Assert<
  [
    SameType<TaskListParams, z.input<typeof TaskListRequestParams>>,
    SameType<TaskListResponse, z.infer<typeof TaskListResponse>>,
  ]
>;
