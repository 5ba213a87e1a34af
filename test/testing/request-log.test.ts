import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  heldBytes,
  MAX_RECORDED_BODY_DEPTH,
  MAX_REMEMBERED_CREDENTIALS,
  RECORDED_PREFIX_CHARS,
  RequestLog,
  recordedBody,
  SUMMARY_HEADERS,
  SUMMARY_QUERY_PARAMS,
  storedBody,
} from '../../src/testing/request-log.js';
import { ROOT } from '../support/root.js';

const entryOf = (body: string) => ({
  operation: 'tasks.create' as const,
  method: 'POST',
  url: 'http://delivery.test/tasks',
  path: '/tasks',
  query: {},
  headers: { 'content-type': 'application/json' },
  body: recordedBody(body),
});

describe('RequestLog', () => {
  it('drops the oldest entries once its byte bound is passed, counting each body at 2 bytes a character', () => {
    const log = new RequestLog(1000, 100_000);
    const body = JSON.stringify({ note: 'x'.repeat(10_000) });
    for (let index = 0; index < 50; index++) log.add(entryOf(body), body);
    expect(log.bytes).toBeLessThanOrEqual(100_000);
    const one = heldBytes(entryOf(body), storedBody(body));
    expect(one).toBeGreaterThan(2 * body.length);
    expect(log.size).toBe(Math.floor(100_000 / one));
  });

  it('keeps a request without valid credentials as a summary of fixed size, however many fields it sent', () => {
    const log = new RequestLog(10);
    const query = Object.fromEntries(
      Array.from({ length: 3000 }, (_, index) => [`q${index}`, 'v'.repeat(300)]),
    );
    const headers = Object.fromEntries(
      Array.from({ length: 500 }, (_, index) => [`x-h${index}`, 'h'.repeat(300)]),
    );
    headers.authorization = 'apikey sk_live_sent_once_0123456789';
    const entry = { ...entryOf(''), url: `http://delivery.test/tasks?${'a'.repeat(10_000)}`, query, headers };
    log.add(entry, 'b'.repeat(50_000), false);
    const [kept] = log.all();
    expect(Object.keys(kept?.query ?? {})).toHaveLength(SUMMARY_QUERY_PARAMS);
    expect(Object.keys(kept?.headers ?? {})).toHaveLength(SUMMARY_HEADERS);
    expect(kept?.headers.authorization).toBe('apikey sk_live_sent_once_0123456789');
    expect(kept?.url.length).toBe(RECORDED_PREFIX_CHARS);
    expect(kept?.body).toEqual({ truncated: true, bytes: 50_000, prefix: 'b'.repeat(RECORDED_PREFIX_CHARS) });
    expect(log.bytes).toBeLessThan(16 * 1024);
    // The credential it sent is remembered for redaction of every page.
    expect(log.credentials()).toContain('sk_live_sent_once_0123456789');
  });

  it('remembers the last 16 distinct credentials sent, and forgets them at clear()', () => {
    const log = new RequestLog(1000);
    for (let index = 0; index < 40; index++) {
      const headers = { authorization: `apikey key-number-${index % 20}`, 'x-seller-id': 'short' };
      log.add({ ...entryOf(''), headers }, '', false);
    }
    expect(log.credentials()).toHaveLength(MAX_REMEMBERED_CREDENTIALS);
    expect(log.credentials()).toContain('key-number-19');
    expect(log.credentials()).not.toContain('short');
    log.clear();
    expect(log.credentials()).toEqual([]);
  });

  it('keeps a body nested deeper than its bound as a summary', () => {
    const deep = `${'['.repeat(MAX_RECORDED_BODY_DEPTH + 1)}${']'.repeat(MAX_RECORDED_BODY_DEPTH + 1)}`;
    expect(recordedBody(deep)).toEqual({ truncated: true, bytes: deep.length, prefix: deep });
    const shallow = `${'['.repeat(MAX_RECORDED_BODY_DEPTH)}${']'.repeat(MAX_RECORDED_BODY_DEPTH)}`;
    expect(Array.isArray(recordedBody(shallow))).toBe(true);
    expect(recordedBody('{"a":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}')).toEqual({
      a: '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[',
    });
  });

  it('pages from the newest back to the oldest, whatever was dropped', () => {
    const log = new RequestLog(30);
    for (let index = 0; index < 45; index++) log.add(entryOf(String(index)), String(index));
    const pages: unknown[][] = [];
    let before: number | undefined;
    do {
      const page = log.page(7, before);
      pages.push(page.requests.map((request) => request.body));
      before = page.before;
    } while (before !== undefined);
    expect(pages.flat().length).toBe(30);
    expect(pages[0]).toEqual([38, 39, 40, 41, 42, 43, 44]);
    expect(pages.at(-1)).toEqual([15, 16]);
  });
});

/** Runs `script` in a child Node with `--expose-gc` and returns the JSON of its last line. */
function measure(script: string): { grownMiB: number; countedMiB: number; kept: number } {
  const run = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
      timeout: 110_000,
    },
  );
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as {
    grownMiB: number;
    countedMiB: number;
    kept: number;
  };
}

/** The start of every measuring script: the log, and the heap after two collections. */
const PRELUDE = `
  const { RequestLog, DEFAULT_REQUEST_LOG_BYTES } = await import('./src/testing/request-log.ts');
  const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed; };
  const log = new RequestLog(1000);
  const entry = { operation: 'tasks.create', method: 'POST', url: 'http://h/tasks', path: '/tasks', query: {}, headers: { 'content-type': 'application/json' } };
  const before = heap();
`;

// Child processes that build and collect hundreds of MB: CPU work, up to a minute on 2 loaded cores.
describe('RequestLog memory (heap after garbage collection, in a child process)', {
  timeout: 120_000,
}, () => {
  it('holds a summary, not the body behind it', () => {
    // 200 entries of 1 MB bodies, kept as summaries: a prefix that still pointed into its body would hold 200 MB.
    const { grownMiB, kept } = measure(`${PRELUDE}
      for (let index = 0; index < 200; index++) {
        const body = JSON.stringify({ index, note: 'x'.repeat(1_000_000) });
        log.add({ ...entry, headers: { 'x-note': 'h'.repeat(5000) } }, body, index % 2 === 0);
      }
      console.log(JSON.stringify({ grownMiB: (heap() - before) / 2 ** 20, kept: log.size }));
    `);
    expect(kept).toBe(200);
    expect(grownMiB).toBeLessThan(20);
  });

  it('holds no more than it counts: 1,000 bodies of 16 KB [{},{},…] stay within the 8 MiB bound', () => {
    const { grownMiB, countedMiB, kept } = measure(`${PRELUDE}
      const body = '[' + Array(4096).fill('{}').join(',') + ']';
      for (let index = 0; index < 1000; index++) log.add(entry, body.slice(0, 16_000 - 2) + ']', true);
      console.log(JSON.stringify({ grownMiB: (heap() - before) / 2 ** 20, countedMiB: log.bytes / 2 ** 20, kept: log.size }));
    `);
    expect(countedMiB).toBeLessThanOrEqual(8);
    expect(kept).toBeGreaterThan(200);
    // Parsed, each such body held ~300 KiB: 1,000 of them ~300 MiB.
    expect(grownMiB).toBeLessThanOrEqual(countedMiB + 1);
  });

  it('holds no more than it counts over 1,000 unauthenticated requests with 3,000 query parameters and 100 headers', () => {
    const { grownMiB, countedMiB } = measure(`${PRELUDE}
      for (let index = 0; index < 1000; index++) {
        const query = {};
        for (let param = 0; param < 3000; param++) query['p' + param + '_' + index] = 'v' + param;
        const headers = {};
        for (let header = 0; header < 100; header++) headers['x-h' + header] = 'value-' + header + '-' + index;
        log.add({ ...entry, url: 'http://h/tasks?' + 'q'.repeat(16_000), query, headers }, '', false);
      }
      console.log(JSON.stringify({ grownMiB: (heap() - before) / 2 ** 20, countedMiB: log.bytes / 2 ** 20 }));
    `);
    expect(countedMiB).toBeLessThanOrEqual(8);
    expect(grownMiB).toBeLessThanOrEqual(countedMiB + 1);
  });
});
