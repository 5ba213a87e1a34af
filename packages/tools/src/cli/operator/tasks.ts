/** `delivery-task tasks list` and `tasks get <id>`: OpenAPI `listTasks` and OpenAPI `retrieveTask`. */

import type { Task } from 'delivery-task-sdk';
import type { TaskListParams } from 'delivery-task-sdk/schemas';
import { MAX_PAGE_SIZE, TASK_STATUSES } from 'delivery-task-sdk/schemas';
import { TableWriter } from '../format.js';
import { integerValue, stringValue, UsageError } from './args.js';
import type { CommandContext, OperatorCommandSpec } from './command.js';
import { TASK_COLUMNS, taskDetails, taskRow } from './task-view.js';

/** Most tasks one `tasks list` prints (`--limit` cannot ask for more). */
export const MAX_LIST_LIMIT = 1_000_000;

/**
 * Pages one `tasks list` may read (100 000 tasks at 10 a page) before the SDK's `PaginationLimitError`:
 * the guard against a service that never ends a listing.
 */
export const MAX_LIST_PAGES = 10_000;

/** Progress on a terminal is redrawn every this many tasks read. */
const PROGRESS_EVERY = 10;

function statusFilter(text: string | undefined): ReadonlySet<string> | undefined {
  if (text === undefined) return undefined;
  const statuses = text.split(',').map((status) => status.trim());
  const unknown = statuses.filter((status) => !(TASK_STATUSES as readonly string[]).includes(status));
  if (unknown.length > 0) {
    throw new UsageError(
      `--status: unknown status ${JSON.stringify(unknown[0])}; one of ${TASK_STATUSES.join(', ')}`,
    );
  }
  return new Set(statuses);
}

/**
 * Counts tasks read while a listing runs: on a terminal, a line redrawn in place (`reading tasks…
 * 40/120`), cleared at the end; in every case, when the listing took more than one page, one closing
 * count line on stderr.
 */
class ListProgress {
  readonly #context: CommandContext;
  readonly #total: number;
  readonly #firstPageSize: number;
  #read = 0;
  #drawn = false;

  constructor(context: CommandContext, total: number, firstPageSize: number) {
    this.#context = context;
    this.#total = total;
    this.#firstPageSize = firstPageSize;
  }

  read(): void {
    this.#read++;
    if (this.#context.terminal && this.#read % PROGRESS_EVERY === 0) {
      this.#context.output.stderrRaw(`\r\u001b[Kreading tasks… ${this.#read}/${this.#total}`);
      this.#drawn = true;
    }
  }

  /** Clears the live line (also when the listing failed, so the error line starts clean). */
  clear(): void {
    if (this.#drawn) this.#context.output.stderrRaw('\r\u001b[K');
    this.#drawn = false;
  }

  done(listed: number): void {
    this.clear();
    if (this.#read > this.#firstPageSize) {
      this.#context.output.note(
        `listed ${listed} task${listed === 1 ? '' : 's'} (read ${this.#read} of ${this.#total} reported)`,
      );
    }
  }
}

/** `tasks list`. */
export const tasksList: OperatorCommandSpec = {
  words: ['tasks', 'list'],
  arguments: [],
  options: {
    search: {
      type: 'string',
      valueName: 'TEXT',
      description: 'only tasks whose fields contain TEXT (literal, not a pattern)',
    },
    status: {
      type: 'string',
      valueName: 'STATUS[,STATUS…]',
      description: 'only tasks in these statuses (filtered here: the service has no status filter)',
    },
    limit: {
      type: 'string',
      valueName: 'N',
      description: `print at most N tasks (1…${MAX_LIST_LIMIT}); default: all`,
    },
  },
  summary: "list tasks over every page, in the service's order",
  details: [
    'Reads every page with the SDK (each task once) until --limit tasks are printed or the pages end.',
    'Human output: an aligned table (id, order, status, fee, amount to collect, creation time in UTC).',
    '--json: a JSON array of the tasks as the service sent them, one task per line, written as pages arrive.',
    'When more than one page was read, a count line goes to stderr.',
  ],
  async run(context, input) {
    const search = stringValue(input, 'search');
    const statuses = statusFilter(stringValue(input, 'status'));
    const limit = integerValue(input, 'limit', 1, MAX_LIST_LIMIT) ?? Number.POSITIVE_INFINITY;
    const params: TaskListParams = {};
    if (search !== undefined) params.search = search;
    // Without a status filter, no page needs more tasks than the limit.
    if (statuses === undefined && limit < MAX_PAGE_SIZE) params.limit = limit;
    const listing = context.client.tasks.list(params, { signal: context.signal, maxPages: MAX_LIST_PAGES });
    const first = await listing;
    const progress = new ListProgress(context, first.total, first.tasks.length);
    const { output } = context;
    const sink: { add(task: Task): void; end(): void } = output.json
      ? output.jsonArray()
      : (() => {
          const table = new TableWriter(TASK_COLUMNS, (line) => output.line(line));
          return { add: (task: Task) => table.add(taskRow(output.redact(task))), end: () => table.end() };
        })();
    let listed = 0;
    try {
      // Iterating after `await` reuses the first page: it is requested once.
      for await (const task of listing) {
        progress.read();
        if (statuses !== undefined && !statuses.has(task.status ?? '')) continue;
        sink.add(task);
        listed++;
        if (listed >= limit) break;
      }
    } catch (error) {
      progress.clear();
      // A person still sees the rows read before the failure; a JSON array stays unterminated.
      if (!output.json) sink.end();
      throw error;
    }
    sink.end();
    progress.done(listed);
  },
};

/** `tasks get <id>`. */
export const tasksGet: OperatorCommandSpec = {
  words: ['tasks', 'get'],
  arguments: ['<id>'],
  options: {},
  summary: 'show one task',
  details: ['--json: the task as the service sent it.'],
  async run(context, input) {
    const [id = ''] = input.positionals;
    const task = await context.client.tasks.retrieve(id, { signal: context.signal });
    if (context.output.json) context.output.document(task);
    else for (const line of taskDetails(context.output.redact(task))) context.output.line(line);
  },
};
