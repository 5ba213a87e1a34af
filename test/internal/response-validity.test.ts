import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { sampleTask } from '../../bench/support/sample-task.js';
import {
  BranchListResponse,
  Estimate,
  ResponseValidationError,
  Task,
  TaskCreateResponse,
  TaskListResponse,
  WalletBalance,
  WalletTopUp,
} from '../../src/index.js';
import { Redactor } from '../../src/internal/redact.js';
import { parseResponse, type Schema, safeParse, useSchemaCompiler } from '../../src/internal/validate.js';

const redactor = new Redactor([]);
const context = (mode: 'strict' | 'tolerant' = 'strict') => ({
  operation: 'tasks.list',
  method: 'GET',
  url: 'http://127.0.0.1/tasks',
  status: 200,
  mode,
  redactor,
  report: () => {},
});

afterEach(() => useSchemaCompiler(undefined));

/** Bodies shaped like a task, right and wrong in turn, with unknown fields at every level. */
const taskLike = fc.record(
  {
    id: fc.oneof(fc.string(), fc.integer()),
    status: fc.oneof(fc.constantFrom('pending', 'delivered', 'new-kind'), fc.boolean()),
    collectCash: fc.oneof(fc.boolean(), fc.string()),
    statusHistory: fc.oneof(
      fc.array(fc.record({ status: fc.oneof(fc.string(), fc.integer()), extra: fc.jsonValue() })),
      fc.string(),
    ),
    driver: fc.oneof(fc.record({ name: fc.oneof(fc.string(), fc.boolean()), vehicle: fc.jsonValue() }), fc.integer()),
    travelDetail: fc.oneof(
      fc.record({ totalDistance: fc.oneof(fc.double(), fc.string()), unknown: fc.jsonValue() }),
      fc.constant('x'),
    ),
    dispatchwebhookrequest: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.integer())),
    unknownField: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

describe('response validation without a copy', () => {
  for (const compiled of [false, true]) {
    describe(compiled ? 'with the zod compiler (Node build)' : 'with the runtime parser (bundler build)', () => {
      it('accepts and refuses exactly the bodies a full parse does, and returns what a full parse returns', () => {
        if (compiled) useSchemaCompiler(z.compile);
        const pages = fc.sample(
          fc.record(
            {
              tasks: fc.array(taskLike, { maxLength: 3 }),
              page: fc.oneof(fc.integer(), fc.double()),
              limit: fc.integer(),
              totalPages: fc.integer(),
              total: fc.integer(),
              extra: fc.jsonValue(),
            },
            { requiredKeys: ['tasks', 'page', 'limit', 'totalPages', 'total'] },
          ),
          { numRuns: 400, seed: 21 },
        );
        let accepted = 0;
        for (const page of pages) {
          const expected = safeParse(TaskListResponse, structuredClone(page));
          let got: unknown;
          let error: unknown;
          try {
            got = parseResponse(TaskListResponse, structuredClone(page), context());
          } catch (caught) {
            error = caught;
          }
          if (expected.success) {
            accepted++;
            expect(error).toBeUndefined();
            expect(got).toStrictEqual(expected.data);
          } else {
            expect(error).toBeInstanceOf(ResponseValidationError);
            expect((error as ResponseValidationError).issues.map((issue) => issue.path)).toEqual(
              expected.error.issues.map((issue) => issue.path.join('.')),
            );
          }
        }
        // Both kinds of body were tried.
        expect(accepted).toBeGreaterThan(20);
        expect(accepted).toBeLessThan(pages.length - 20);
      });

      it('returns a valid body itself, without building a copy of it', () => {
        if (compiled) useSchemaCompiler(z.compile);
        const page = { tasks: [sampleTask(1), sampleTask(2)], page: 1, limit: 10, totalPages: 1, total: 2 };
        const result = parseResponse(TaskListResponse, page, context());
        expect(result).toBe(page);
        expect(result.tasks[1]).toBe(page.tasks[1]);
      });

      it('keeps unknown fields at every level of a valid body', () => {
        if (compiled) useSchemaCompiler(z.compile);
        const task = { ...sampleTask(1), rating: 5, driver: { name: 'Ahmad', vehicle: { plate: 'KW-1' } } };
        const page = { tasks: [task], page: 1, limit: 10, totalPages: 1, total: 1, cursor: 'next' };
        const result = parseResponse(TaskListResponse, structuredClone(page), context());
        expect(result).toStrictEqual(page);
        expect(result.tasks[0]?.driver).toHaveProperty('vehicle.plate', 'KW-1');
      });

      it('checks every response schema of the client the same way as a full parse', () => {
        if (compiled) useSchemaCompiler(z.compile);
        const bodies: [Schema, unknown, boolean][] = [
          [Task, sampleTask(2), true],
          [Task, { ...sampleTask(2), collectCash: 'yes' }, false],
          [TaskCreateResponse, { data: { createTask: sampleTask(3) }, extra: 1 }, true],
          [TaskCreateResponse, { data: { createTask: 'x' } }, false],
          [Estimate, { travelDetail: { totalDistance: 10.6, more: [1] }, price: 1.5, currency: 'KWD' }, true],
          [Estimate, { price: '1.5' }, false],
          [BranchListResponse, [{ id: 'b1', name: 'Main' }, 'Salmiya'], true],
          [BranchListResponse, { branches: [{ name: 'Main', unknown: true }] }, true],
          [BranchListResponse, { branches: 'none' }, false],
          [WalletBalance, { walletAmount: 12.5, other: {} }, true],
          [WalletBalance, { walletAmount: '12' }, false],
          [WalletTopUp, { paymentUrl: 'https://pay.test/1' }, true],
          [WalletTopUp, { amount: 5 }, false],
        ];
        for (const [schema, body, valid] of bodies) {
          const expected = safeParse(schema, structuredClone(body));
          expect(expected.success, JSON.stringify(body)).toBe(valid);
          if (valid) expect(parseResponse(schema, structuredClone(body), context())).toStrictEqual(expected.data);
          else expect(() => parseResponse(schema, structuredClone(body), context())).toThrow(ResponseValidationError);
        }
      });

      it('returns the parsed value, not the body, for a schema that transforms, defaults or rewrites', () => {
        if (compiled) useSchemaCompiler(z.compile);
        const rewriting = [
          [
            z.object({
              name: z.pipe(
                z.string(),
                z.transform((name) => name.length),
              ),
            }),
            { name: 'abc' },
            { name: 3 },
          ],
          [z.object({ name: z._default(z.string(), 'none') }), {}, { name: 'none' }],
          [z.object({ name: z.string().check(z.trim()) }), { name: '  a ' }, { name: 'a' }],
          [
            z.looseObject({ items: z.array(z.pipe(z.string(), z.transform(Number))) }),
            { items: ['1'] },
            { items: [1] },
          ],
        ] as const;
        for (const [schema, body, expected] of rewriting) {
          expect(parseResponse(schema, body, context())).toStrictEqual(expected);
        }
      });

      it('keeps a loose object whose own check reads its unknown keys', () => {
        if (compiled) useSchemaCompiler(z.compile);
        const schema = z
          .looseObject({ id: z.string() })
          .check(z.refine((value) => !('forbidden' in value), 'forbidden key'));
        expect(() => parseResponse(schema, { id: 'a', forbidden: 1 }, context())).toThrow(ResponseValidationError);
        expect(parseResponse(schema, { id: 'a', allowed: 1 }, context())).toStrictEqual({ id: 'a', allowed: 1 });
      });

      it("in tolerant mode reads a mismatching body into a copy with the schema's types, and reports the drift", () => {
        if (compiled) useSchemaCompiler(z.compile);
        const reported: unknown[] = [];
        const body = { ...sampleTask(4), collectCash: 'yes', deliveryDispatched: 'true' };
        const read = parseResponse(Task, body, {
          ...context('tolerant'),
          report: (drifts) => reported.push(...drifts),
        });
        expect(read).not.toBe(body);
        expect(safeParse(Task, read).success).toBe(true);
        expect(read).not.toHaveProperty('collectCash');
        expect(read.deliveryDispatched).toBe(true);
        expect(body.collectCash).toBe('yes');
        expect(reported).toHaveLength(2);
      });
    });
  }
});
