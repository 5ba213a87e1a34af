import { describe, expect, it } from 'vitest';
import { MAX_RECORDED_BODY_DEPTH, RequestLog, recordedBody } from '../../src/testing/request-log.js';

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
