import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { sampleTask } from '../../bench/support/sample-task.js';
import { ResponseValidationError } from '../../src/index.js';
import { compiledCheck } from '../../src/internal/copy-free.js';
import { Redactor } from '../../src/internal/redact.js';
import { parseResponse, type Schema, safeParse, useSchemaCompiler } from '../../src/internal/validate.js';
import {
  BranchListResponse,
  Estimate,
  Task,
  TaskCreateResponse,
  TaskListResponse,
  WalletBalance,
  WalletTopUp,
} from '../../src/schemas.js';

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
    driver: fc.oneof(
      fc.record({ name: fc.oneof(fc.string(), fc.boolean()), vehicle: fc.jsonValue() }),
      fc.integer(),
    ),
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
    describe(
      compiled ? 'with the zod compiler (Node build)' : 'with the runtime parser (bundler build)',
      () => {
        it('accepts and refuses exactly the bodies a full parse does, and returns what a full parse returns', () => {
          if (compiled) useSchemaCompiler(z.compile, compiledCheck);
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
          if (compiled) useSchemaCompiler(z.compile, compiledCheck);
          const page = { tasks: [sampleTask(1), sampleTask(2)], page: 1, limit: 10, totalPages: 1, total: 2 };
          const result = parseResponse(TaskListResponse, page, context());
          expect(result).toBe(page);
          expect(result.tasks[1]).toBe(page.tasks[1]);
        });

        it('keeps unknown fields at every level of a valid body', () => {
          if (compiled) useSchemaCompiler(z.compile, compiledCheck);
          const task = { ...sampleTask(1), rating: 5, driver: { name: 'Ahmad', vehicle: { plate: 'KW-1' } } };
          const page = { tasks: [task], page: 1, limit: 10, totalPages: 1, total: 1, cursor: 'next' };
          const result = parseResponse(TaskListResponse, structuredClone(page), context());
          expect(result).toStrictEqual(page);
          expect(result.tasks[0]?.driver).toHaveProperty('vehicle.plate', 'KW-1');
        });

        it('checks every response schema of the client the same way as a full parse', () => {
          if (compiled) useSchemaCompiler(z.compile, compiledCheck);
          const bodies: [Schema, unknown, boolean][] = [
            [Task, sampleTask(2), true],
            [Task, { ...sampleTask(2), collectCash: 'yes' }, false],
            [TaskCreateResponse, { data: { createTask: sampleTask(3) }, extra: 1 }, true],
            [TaskCreateResponse, { data: { createTask: 'x' } }, false],
            [
              Estimate,
              { travelDetail: { totalDistance: 10.6, more: [1] }, price: 1.5, currency: 'KWD' },
              true,
            ],
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
            if (valid)
              expect(parseResponse(schema, structuredClone(body), context())).toStrictEqual(expected.data);
            else
              expect(() => parseResponse(schema, structuredClone(body), context())).toThrow(
                ResponseValidationError,
              );
          }
        });

        it('returns the parsed value, not the body, for a schema that transforms, defaults or rewrites', () => {
          if (compiled) useSchemaCompiler(z.compile, compiledCheck);
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
          if (compiled) useSchemaCompiler(z.compile, compiledCheck);
          const schema = z
            .looseObject({ id: z.string() })
            .check(z.refine((value) => !('forbidden' in value), 'forbidden key'));
          expect(() => parseResponse(schema, { id: 'a', forbidden: 1 }, context())).toThrow(
            ResponseValidationError,
          );
          expect(parseResponse(schema, { id: 'a', allowed: 1 }, context())).toStrictEqual({
            id: 'a',
            allowed: 1,
          });
        });

        it("in tolerant mode reads a mismatching body into a copy with the schema's types, and reports the drift", () => {
          if (compiled) useSchemaCompiler(z.compile, compiledCheck);
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
      },
    );
  }
});

describe('the check of a valid body, over every kind of schema it reads itself or hands to zod', () => {
  /** Schemas of each kind the check handles (plain, with checks handed to zod, strict, catch-all, records), each with a valid body. */
  const schemas: [string, Schema, unknown][] = [
    [
      'optionals, nullables, enums and literals',
      z.looseObject({
        name: z.optional(z.string()),
        note: z.nullable(z.string()),
        kind: z.optional(z.enum(['a', 'b'])),
        sign: z.optional(z.union([z.literal(1), z.literal(-1)])),
        flag: z.boolean(),
        gone: z.optional(z.undefined()),
        nothing: z.optional(z.null()),
      }),
      { note: null, flag: true },
    ],
    [
      'checks of their own',
      z.looseObject({
        page: z.int(),
        id: z.string().check(z.minLength(2)),
        size: z.optional(z.number().check(z.gte(0), z.lte(10))),
        items: z.array(z.string()).check(z.maxLength(2)),
      }),
      { page: 1, id: 'ab', items: [] },
    ],
    ['a strict object', z.strictObject({ id: z.string(), count: z.optional(z.number()) }), { id: 'a' }],
    ['a catch-all object', z.catchall(z.object({ id: z.string() }), z.number()), { id: 'a', extra: 1 }],
    ['a record', z.looseObject({ totals: z.record(z.string(), z.number()) }), { totals: { a: 1 } }],
    [
      'an object checked as a whole',
      z.looseObject({ a: z.number(), b: z.number() }).check(z.refine((v) => v.a < v.b)),
      { a: 1, b: 2 },
    ],
    [
      'a union of shapes',
      z.union([z.array(z.string()), z.looseObject({ items: z.array(z.number()) })]),
      { items: [1] },
    ],
  ];
  const KEYS = [
    'name',
    'note',
    'kind',
    'sign',
    'flag',
    'gone',
    'nothing',
    'page',
    'id',
    'size',
    'items',
    'count',
  ];
  KEYS.push('extra', 'totals', 'a', 'b');
  /** Values near and far from those shapes. */
  const scalar = fc.oneof(
    fc.string({ maxLength: 3 }),
    fc.constantFrom(
      'a',
      'b',
      'c',
      1,
      -1,
      0,
      2,
      11,
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      true,
      null,
      undefined,
    ),
  );
  const value = fc.letrec((tie) => ({
    any: fc.oneof({ depthSize: 'small' }, scalar, tie('array'), tie('object')),
    array: fc.array(tie('any'), { maxLength: 3 }),
    object: fc.dictionary(fc.constantFrom(...KEYS), tie('any'), { maxKeys: 8 }),
  })).any;

  for (const compiled of [false, true]) {
    it(`accepts exactly what zod accepts and returns the body itself (${compiled ? 'Node build' : 'bundler build'})`, () => {
      if (compiled) useSchemaCompiler(z.compile, compiledCheck);
      for (const [name, schema, valid] of schemas) {
        let accepted = 0;
        // The valid body with up to three fields replaced or added, or any value at all.
        const bodies = fc.oneof(
          fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 3 }).map((changes) => ({
            ...(valid as object),
            ...changes,
          })),
          value,
        );
        for (const body of fc.sample(bodies, { numRuns: 600, seed: 5 })) {
          const expected = z.safeParse(schema, structuredClone(body)).success;
          let got: unknown;
          try {
            got = parseResponse(schema, body, context());
          } catch (error) {
            expect(error, name).toBeInstanceOf(ResponseValidationError);
            got = error;
          }
          expect(!(got instanceof ResponseValidationError), `${name}: ${JSON.stringify(body)}`).toBe(
            expected,
          );
          if (expected) accepted++;
        }
        // Both answers were tried for each shape.
        expect(accepted, name).toBeGreaterThan(20);
        expect(accepted, name).toBeLessThan(580);
      }
    });
  }
});
