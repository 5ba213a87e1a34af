/**
 * `GET tasks` (OpenAPI `listTasks`; docs/testing.md): query, search, sort, pages; ties keep creation order.
 * @module
 */
import * as z from 'zod';
import type { Task } from '../schemas/task.js';
import { MAX_PAGE_SIZE } from '../schemas/task-list.js';
import { UnsupportedPatternError } from './pattern-parser.js';
import { describeIssues, type Parsed } from './request-body.js';
import { compileSearchPattern, type SearchPattern, StepBudgetExceededError } from './search-pattern.js';
import type { TaskRecord } from './state.js';

/** Longest `search` pattern accepted as a regular expression. */
export const MAX_REGEX_SEARCH_LENGTH = 200;

/**
 * Most automaton steps of one regular-expression search over all tasks; past it, a 400
 * (delivery-task-tools/docs/sandbox.md "Bounds").
 */
export const MAX_SEARCH_STEPS = 1_000_000;

/** Thrown by a search's test once it has used up {@link MAX_SEARCH_STEPS}; answered as a 400. */
export class SearchTooCostlyError extends Error {
  override name = 'SearchTooCostlyError';
  constructor() {
    super(
      `search: the regular expression needs more than ${MAX_SEARCH_STEPS} steps over these tasks; narrow it (anchor it with ^) or send ignoreRegex=true`,
    );
  }
}

export const SEARCHED_FIELDS = [
  'orderNumber',
  'customerName',
  'customerNumber',
  'id',
  'deliveryZone',
] as const;

/** Fields `sortBy` accepts; any other value sorts newest first. */
export const SORT_FIELDS = ['createdAt', 'updatedAt', 'orderNumber', 'status', 'customerName'] as const;

/** Default page size. */
export const DEFAULT_PAGE_SIZE = 10;

const absentWhenEmpty = (value: unknown): unknown => (value === '' ? undefined : value);

const IntegerText = z
  .string()
  .regex(/^\d{1,16}$/, 'Expected an integer')
  .transform(Number);

const ListQuery = z.object({
  limit: z.preprocess(
    absentWhenEmpty,
    IntegerText.pipe(z.number().min(1).max(MAX_PAGE_SIZE)).default(DEFAULT_PAGE_SIZE),
  ),
  page: z.preprocess(
    absentWhenEmpty,
    IntegerText.pipe(z.number().min(1).max(Number.MAX_SAFE_INTEGER)).default(1),
  ),
  search: z.string().default(''),
  sortBy: z.string().default(''),
  ignoreRegex: z.preprocess(absentWhenEmpty, z.enum(['true', 'false']).default('false')),
  sortOrder: z.preprocess(absentWhenEmpty, z.enum(['1', '-1']).default('1')),
});

export interface TaskListQuery {
  readonly limit: number;
  readonly page: number;
  readonly matches: ((task: Task) => boolean) | undefined;
  readonly order: (a: TaskRecord, b: TaskRecord) => number;
}

export function firstValues(params: URLSearchParams): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of params) if (!Object.hasOwn(query, name)) query[name] = value;
  return query;
}

function searchTest(search: string, literal: boolean): Parsed<((task: Task) => boolean) | undefined> {
  if (search === '') return { ok: true, value: undefined };
  let test: (text: string) => boolean;
  if (literal) {
    const needle = search.toLowerCase();
    test = (text) => text.toLowerCase().includes(needle);
  } else {
    if (search.length > MAX_REGEX_SEARCH_LENGTH) {
      return {
        ok: false,
        message: `search: a regular expression may have at most ${MAX_REGEX_SEARCH_LENGTH} characters (send ignoreRegex=true for literal text)`,
      };
    }
    try {
      // Compiled only to report a syntax error in RegExp's own words; never run (it may backtrack).
      new RegExp(search, 'i');
    } catch (error) {
      return { ok: false, message: `search: invalid regular expression (${(error as Error).message})` };
    }
    let pattern: SearchPattern;
    try {
      pattern = compileSearchPattern(search, MAX_SEARCH_STEPS);
    } catch (error) {
      if (!(error instanceof UnsupportedPatternError)) throw error;
      return {
        ok: false,
        message: `search: the mock's regular expressions do not support ${error.message} (send ignoreRegex=true for literal text)`,
      };
    }
    test = (text) => {
      try {
        return pattern.test(text);
      } catch (error) {
        if (error instanceof StepBudgetExceededError) throw new SearchTooCostlyError();
        throw error;
      }
    };
  }
  return {
    ok: true,
    value: (task) =>
      SEARCHED_FIELDS.some((field) => {
        const value = task[field];
        return typeof value === 'string' && test(value);
      }),
  };
}

function compareValues(a: unknown, b: unknown): number {
  const left = typeof a === 'string' ? a : undefined;
  const right = typeof b === 'string' ? b : undefined;
  if (left === right) return 0;
  if (left === undefined) return -1;
  if (right === undefined) return 1;
  return left < right ? -1 : 1;
}

function orderOf(sortBy: string, sortOrder: '1' | '-1'): TaskListQuery['order'] {
  const field = (SORT_FIELDS as readonly string[]).includes(sortBy) ? sortBy : undefined;
  if (field === undefined) return (a, b) => b.seq - a.seq;
  const direction = sortOrder === '-1' ? -1 : 1;
  return (a, b) => direction * (compareValues(a.task[field], b.task[field]) || a.seq - b.seq);
}

/** `query` sorted by `sortBy`/`sortOrder` instead of what it asked (fault `sort`). */
export function withOrder(query: TaskListQuery, sortBy: string, sortOrder: 1 | -1): TaskListQuery {
  return { ...query, order: orderOf(sortBy, sortOrder === -1 ? '-1' : '1') };
}

/** Parses the query of `GET tasks`; a failure carries the message of the 400. */
export function parseListQuery(params: URLSearchParams): Parsed<TaskListQuery> {
  const result = ListQuery.safeParse(firstValues(params));
  if (!result.success) return { ok: false, message: describeIssues(result.error.issues, 'query') };
  const { limit, page, search, sortBy, ignoreRegex, sortOrder } = result.data;
  const matches = searchTest(search, ignoreRegex === 'true');
  if (!matches.ok) return matches;
  return { ok: true, value: { limit, page, matches: matches.value, order: orderOf(sortBy, sortOrder) } };
}

/** One page of the list, before tasks are cloned for the answer. */
export interface TaskListPage {
  readonly records: readonly TaskRecord[];
  readonly page: number;
  readonly limit: number;
  readonly totalPages: number;
  readonly total: number;
}

/**
 * One page of `records`, filtered and sorted. @throws {SearchTooCostlyError} past {@link MAX_SEARCH_STEPS}.
 */
export function listPage(records: readonly TaskRecord[], query: TaskListQuery): TaskListPage {
  const { matches } = query;
  const selected = (matches ? records.filter((record) => matches(record.task)) : [...records]).sort(
    query.order,
  );
  const start = (query.page - 1) * query.limit;
  return {
    records: start < selected.length ? selected.slice(start, start + query.limit) : [],
    page: query.page,
    limit: query.limit,
    totalPages: Math.ceil(selected.length / query.limit),
    total: selected.length,
  };
}
