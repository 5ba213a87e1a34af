/**
 * The pieces of `delivery-task` that need no service: cells and tables (src/cli/format.ts), the task
 * row, the status changes of `tasks watch`, the exit code of each error class, the error line, and the
 * copy of the exit-code table in docs/cli.md.
 */
import { readFile } from 'node:fs/promises';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  ConfigurationError,
  DuplicateTaskError,
  kwd,
  PaginationLimitError,
  RequestValidationError,
  ResponseValidationError,
  StatusWaitTimeoutError,
  TaskCreationOutcomeUnknownError,
} from 'delivery-task-sdk';
import { describe, expect, it } from 'vitest';
import {
  ABSENT,
  kwdCell,
  labelled,
  MAX_CELL_CHARS,
  printable,
  TABLE_BLOCK_ROWS,
  TableWriter,
  timeCell,
} from '../../src/cli/format.js';
import type { CliIo } from '../../src/cli/io.js';
import { UsageError } from '../../src/cli/operator/args.js';
import { EXIT_CODES, exitCodeOf } from '../../src/cli/operator/exit-codes.js';
import { Output } from '../../src/cli/operator/output.js';
import { taskDetails, taskRow } from '../../src/cli/operator/task-view.js';
import { StatusChanges } from '../../src/cli/operator/watch.js';

function apiError(
  status: number,
  operation = 'tasks.retrieve',
  headers: Record<string, string> = {},
): APIError {
  return APIError.generate({
    status,
    headers: new Headers(headers),
    body: { message: 'from the service' },
    method: 'GET',
    url: 'https://delivery.test/rest/tasks/abc',
    operation,
  });
}

describe('cells', () => {
  it('formats KWD through kwd.format, shows the absent mark, and an invalid amount as sent', () => {
    expect(kwdCell('12.5')).toBe(kwd.format('12.5'));
    expect(kwdCell(0.25)).toBe(kwd.format(0.25));
    expect(kwdCell(undefined)).toBe(ABSENT);
    expect(kwdCell('')).toBe(ABSENT);
    expect(kwdCell('1.2345')).toBe('1.2345');
    expect(kwdCell('free\u001b[0m')).toBe('free\ufffd[0m');
  });

  it('shows times as UTC to the second, and text that is not a time as sent', () => {
    expect(timeCell('2026-11-22T13:31:05.123+03:00')).toBe('2026-11-22T10:31:05Z');
    expect(timeCell('yesterday')).toBe('yesterday');
    expect(timeCell(undefined)).toBe(ABSENT);
  });

  it('replaces control characters and cuts long text', () => {
    expect(printable('a\nb\tc\u009bd')).toBe('a\ufffdb\ufffdc\ufffdd');
    const long = printable('x'.repeat(MAX_CELL_CHARS + 50));
    expect([...long]).toHaveLength(MAX_CELL_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });

  it('shows the fee of a task only when it carries estimatedPrice, as the webhook form does', () => {
    const row = taskRow({
      id: 't1',
      orderNumber: 'O-1',
      status: 'pending',
      estimatedPrice: '1.815',
      totalAmount: '3',
    });
    expect(row.slice(0, 4)).toEqual(['t1', 'O-1', 'pending', kwd.format('3')]);
    const priced = taskDetails({ id: 't1', status: 'pending', estimatedPrice: '1.815' });
    expect(priced.filter((line) => /^fee +/.test(line))).toEqual([
      expect.stringMatching(/^fee +KWD\s1\.815$/),
    ]);
    expect(taskDetails({ id: 't1', status: 'pending' }).some((line) => line.startsWith('fee'))).toBe(false);
  });

  it('aligns labels', () => {
    expect(
      labelled([
        ['id', 'a'],
        ['absent', undefined],
        ['status', 'b'],
      ]),
    ).toEqual(['id      a', 'status  b']);
  });
});

describe('TableWriter', () => {
  it('writes nothing, not even a header, without rows', () => {
    const lines: string[] = [];
    new TableWriter([{ title: 'id' }], (line) => lines.push(line)).end();
    expect(lines).toEqual([]);
  });

  it(`aligns each block of ${TABLE_BLOCK_ROWS} rows as it fills, widths only growing`, () => {
    const lines: string[] = [];
    const table = new TableWriter([{ title: 'id' }, { title: 'fee', align: 'right' }], (line) =>
      lines.push(line),
    );
    for (let index = 0; index < TABLE_BLOCK_ROWS; index++) table.add([`t${index}`, '1']);
    // The first block is written as soon as it is full, before the table ends.
    expect(lines).toHaveLength(TABLE_BLOCK_ROWS + 1);
    expect(lines[0]).toBe('ID   FEE');
    expect(lines[1]).toBe('t0     1');
    expect(lines[TABLE_BLOCK_ROWS]).toBe('t99    1');
    table.add(['a-much-longer-id', '10']);
    table.end();
    expect(lines.at(-1)).toBe('a-much-longer-id   10');
    expect(lines).toHaveLength(TABLE_BLOCK_ROWS + 2);
  });
});

describe('StatusChanges', () => {
  it('prints each history entry once, in order, including those passed between two reads', () => {
    const changes = new StatusChanges('t1');
    const entry = (status: string, second: number) => ({
      id: `h${second}`,
      status,
      timestamp: `2026-01-01T00:00:0${second}Z`,
    });
    expect(
      changes.next({ status: 'pending', statusHistory: [entry('pending', 0)] }).map((c) => c.status),
    ).toEqual(['pending']);
    expect(changes.next({ status: 'pending', statusHistory: [entry('pending', 0)] })).toEqual([]);
    const later = {
      status: 'accepted',
      statusHistory: [entry('pending', 0), entry('requested', 1), entry('accepted', 2)],
    };
    expect(changes.next(later)).toEqual([
      { taskId: 't1', status: 'requested', at: '2026-01-01T00:00:01Z' },
      { taskId: 't1', status: 'accepted', at: '2026-01-01T00:00:02Z' },
    ]);
  });

  it('falls back to the status when the service sends no history', () => {
    const changes = new StatusChanges('t2');
    expect(changes.next({ status: 'pending', updatedAt: 'u1' })).toEqual([
      { taskId: 't2', status: 'pending', at: 'u1' },
    ]);
    expect(changes.next({ status: 'pending', updatedAt: 'u1' })).toEqual([]);
    expect(changes.next({ status: 'enroute', updatedAt: 'u2' })).toEqual([
      { taskId: 't2', status: 'enroute', at: 'u2' },
    ]);
  });
});

describe('exit codes', () => {
  it.each([
    [new UsageError('bad'), 2],
    [new RequestValidationError('tasks.create', [{ path: 'a', message: 'b', code: 'c' }]), 2],
    [new ConfigurationError('apiKey', 'Missing apiKey'), 2],
    [apiError(400), 2],
    [apiError(422), 2],
    [apiError(401), 3],
    [apiError(403), 3],
    [apiError(404), 4],
    [apiError(402, 'tasks.create'), 5],
    [apiError(429), 6],
    [apiError(500), 6],
    [apiError(503), 6],
    [new APIConnectionError({ method: 'GET', url: 'https://h/tasks', attempts: 3 }), 6],
    [new APIConnectionTimeoutError({ method: 'GET', url: 'https://h/tasks', attempts: 3, timeoutMs: 5 }), 6],
    [new TaskCreationOutcomeUnknownError({ orderNumber: 'O', reason: 'r' }), 7],
    [new DuplicateTaskError({ orderNumber: 'O', taskIds: ['a', 'b'] }), 7],
    [
      new StatusWaitTimeoutError({
        taskId: 't',
        statuses: ['delivered'],
        lastStatus: undefined,
        timeoutMs: 1,
      }),
      8,
    ],
    [new APIUserAbortError({ method: 'GET', url: 'https://h/tasks' }), 130],
    [apiError(409), 1],
    [apiError(418), 1],
    [new PaginationLimitError(3), 1],
    [
      new ResponseValidationError({
        method: 'GET',
        url: 'https://h/tasks',
        status: 200,
        issues: [],
        body: {},
      }),
      1,
    ],
    [new TypeError('a bug'), 1],
  ])('%s exits %i', (error, code) => {
    expect(exitCodeOf(error)).toBe(code);
  });

  it('exits 130 for anything once the operator interrupted, except an unknown create outcome', () => {
    expect(exitCodeOf(apiError(503), true)).toBe(130);
    expect(exitCodeOf(new TaskCreationOutcomeUnknownError({ orderNumber: 'O', reason: 'r' }), true)).toBe(7);
  });

  it('lists every code in the exit-code table of docs/cli.md, with the same meaning', async () => {
    const guide = await readFile(new URL('../../../../docs/cli.md', import.meta.url), 'utf8');
    const section = guide.slice(guide.indexOf('**Exit codes**'), guide.indexOf('## Creating a task once'));
    for (const entry of EXIT_CODES) {
      const row = section.split('\n').find((line) => line.startsWith(`| ${entry.code} `));
      expect(row, `docs/cli.md row for exit code ${entry.code}`).toBeDefined();
      expect(row).toContain(entry.meaning);
      for (const name of entry.errors) expect(row).toContain(`\`${name}\``);
    }
  });
});

describe('the error line', () => {
  function capture(): { io: CliIo; stderr: () => string } {
    let stderr = '';
    return {
      io: {
        stdout: () => {},
        stderr: (text) => {
          stderr += text;
        },
        env: {},
        signal: new AbortController().signal,
      },
      stderr: () => stderr,
    };
  }

  it('adds the request id of the cause when the error itself has none', () => {
    const { io, stderr } = capture();
    const cause = apiError(503, 'tasks.create', { 'x-request-id': 'req-cause-1' });
    new Output(io, false, []).failure(
      new TaskCreationOutcomeUnknownError({ orderNumber: 'O-1', reason: 'r', cause }),
      'tasks create',
    );
    expect(stderr()).toMatch(
      /^delivery-task: TaskCreationOutcomeUnknownError: .* \(request id req-cause-1\)\n$/,
    );
  });

  it('is one line without the secrets, at most 2000 characters', () => {
    const { io, stderr } = capture();
    const error = new Error(`line one\nkey sk-LIVE-42 seller SELLER-9001 ${'x'.repeat(5000)}`);
    new Output(io, false, ['sk-LIVE-42', 'SELLER-9001']).failure(error, undefined);
    const text = stderr();
    expect(text.split('\n')).toHaveLength(2);
    expect(text).toMatch(
      /^delivery-task: unexpected error: Error: line one key \[redacted\] seller \[redacted\] x+…\n$/,
    );
    expect(text.length).toBeLessThanOrEqual('delivery-task: '.length + 2001 + 1);
  });
});
