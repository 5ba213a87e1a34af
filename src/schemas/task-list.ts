/**
 * `GET tasks`: list parameters and the page envelope; spec § "Endpoints" → "GET /tasks" and
 * § "Limits" (page size at most 10).
 * @module
 */
import * as z from 'zod/mini';
import { wellFormedText } from './primitives.js';
import { Task } from './task.js';

/** Largest page the service serves (spec § Limits). */
export const MAX_PAGE_SIZE = 10;

/** Sort fields the mock understands; the service's own list is not documented, so any string is sent. */
export type TaskSortField = 'createdAt' | 'updatedAt' | 'orderNumber' | 'status' | 'customerName' | (string & {});

/** Parameters of `client.tasks.list`. Text with unpaired surrogates is rejected (the `wellFormedText` check). */
export const TaskListParams = z
  .strictObject({
    /** Items per page, integer 1…10. Default 10 (the SDK sends 10 when omitted). */
    limit: z.optional(z.int().check(z.gte(1), z.lte(MAX_PAGE_SIZE))),
    /** 1-based page to start from. Default 1. */
    page: z.optional(z.int().check(z.gte(1), z.lte(Number.MAX_SAFE_INTEGER))),
    /** Search term. Matched literally unless `ignoreRegex: false` is given. */
    search: z.optional(z.string()),
    /** Field to sort by (any string is sent; see {@link TaskSortField}). */
    sortBy: z.optional(z.string() as z.ZodMiniType<TaskSortField, string>),
    /** `false` treats `search` as a regular expression. Default `true` in this SDK (literal search). */
    ignoreRegex: z.optional(z.boolean()),
    /** `1` ascending (default), `-1` descending. */
    sortOrder: z.optional(z.union([z.literal(1), z.literal(-1)])),
  })
  .check(wellFormedText);
export type TaskListParams = z.input<typeof TaskListParams>;

/**
 * One page of tasks as the service sends it; all five fields required (spec), and load-bearing (README
 * "Schema drift"): numeric text is read as the number, anything else fails the page.
 */
export const TaskListResponse = z.looseObject({
  /** The page's tasks. */
  tasks: z.array(Task),
  /** Current page, from 1. */
  page: z.int(),
  /** Items per page. */
  limit: z.int(),
  /** Number of pages (0 when nothing matches). */
  totalPages: z.int(),
  /** Total number of matching tasks. */
  total: z.int(),
});
export type TaskListResponse = z.infer<typeof TaskListResponse>;
