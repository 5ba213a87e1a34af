import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MAX_RECORDED_BODY_DEPTH, RequestLog, recordedBody } from '../../src/testing/request-log.js';
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
  it('drops the oldest entries once its byte bound is passed', () => {
    const log = new RequestLog(1000, 100_000);
    const body = JSON.stringify({ note: 'x'.repeat(10_000) });
    for (let index = 0; index < 50; index++) log.add(entryOf(body), body);
    expect(log.bytes).toBeLessThanOrEqual(100_000);
    expect(log.size).toBeLessThan(11);
    expect(log.size).toBeGreaterThan(5);
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

describe('RequestLog memory', () => {
  it('holds a summary, not the body behind it (heap after garbage collection)', () => {
    // 200 entries of 1 MB bodies, kept as summaries: a prefix that still pointed into its body would hold 200 MB.
    const script = `
      const { RequestLog, recordedBody } = await import('./src/testing/request-log.ts');
      const log = new RequestLog(1000);
      gc();
      const before = process.memoryUsage().heapUsed;
      for (let index = 0; index < 200; index++) {
        const body = JSON.stringify({ index, note: 'x'.repeat(1_000_000) });
        const entry = { operation: 'tasks.create', method: 'POST', url: 'http://h/tasks', path: '/tasks', query: {}, headers: { 'x-note': 'h'.repeat(5000) } };
        log.add({ ...entry, body: recordedBody(body, index % 2 === 0) }, body, index % 2 === 0);
      }
      gc();
      console.log(JSON.stringify({ grownMiB: (process.memoryUsage().heapUsed - before) / 2 ** 20, kept: log.size }));
    `;
    const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const { grownMiB, kept } = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as {
      grownMiB: number;
      kept: number;
    };
    expect(kept).toBe(200);
    expect(grownMiB).toBeLessThan(20);
  });
});
