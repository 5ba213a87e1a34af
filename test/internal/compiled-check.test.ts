import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { sampleTask } from '../../bench/support/sample-task.js';
import { compiledCheck } from '../../src/internal/copy-free.js';
import type { Schema } from '../../src/internal/validate.js';
import * as schemas from '../../src/schemas.js';
import { collectGarbage } from '../support/collect-garbage.js';

/** Values of every JSON kind and some no JSON has (`undefined`, `NaN`, `Infinity`, holes), nested. */
const value = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(undefined, null, true, false, 0, -1.5, Number.NaN, Number.POSITIVE_INFINITY, '', 'a'),
    fc.string({ maxLength: 4 }),
    fc.double(),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.sparseArray(fc.string({ maxLength: 2 }), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'x', 'toString'), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** Values of `schema`'s shape most of the time (so both answers come), any value otherwise, at every depth. */
function near(schema: Schema): fc.Arbitrary<unknown> {
  const def = schema._zod.def as z.core.$ZodTypeDef & {
    innerType?: Schema;
    element?: Schema;
    options?: Schema[];
    shape?: Record<string, Schema>;
  };
  const shaped = ((): fc.Arbitrary<unknown> => {
    switch (def.type) {
      case 'string':
        return fc.string({ maxLength: 3 });
      case 'number':
        return fc.oneof(fc.integer(), fc.double());
      case 'boolean':
        return fc.boolean();
      case 'optional':
      case 'nullable':
        return fc.oneof(fc.constantFrom(undefined, null), near(def.innerType as Schema));
      case 'array':
        return fc.array(near(def.element as Schema), { maxLength: 3 });
      case 'union':
        return fc.oneof(...(def.options ?? []).map(near));
      case 'object': {
        const fields = Object.fromEntries(
          Object.entries(def.shape ?? {}).map(([key, field]) => [key, near(field)]),
        );
        const extra = fc.option(value, { freq: 4, nil: undefined });
        return fc
          .tuple(fc.record(fields), fc.subarray(Object.keys(fields)), extra)
          .map(([object, absent, more]) => {
            for (const key of absent) delete (object as Record<string, unknown>)[key];
            return more === undefined ? object : { ...object, extra: more };
          });
      }
      default:
        return value;
    }
  })();
  return fc.oneof({ weight: 4, arbitrary: shaped }, { weight: 1, arbitrary: value });
}

const edgeSchemas: [string, Schema][] = [
  [
    'required, optional, unknown and nullable fields',
    z.object({
      a: z.string(),
      b: z.optional(z.number()),
      c: z.unknown(),
      d: z.nullable(z.optional(z.boolean())),
      e: z.optional(z.nullable(z.array(z.number()))),
      toString: z.optional(z.string()),
    }),
  ],
  [
    'a loose object with nested objects and arrays of optionals',
    z.looseObject({
      a: z.optional(z.looseObject({ b: z.array(z.optional(z.string())), c: z.any() })),
      d: z.nullable(z.object({ e: z.number() })),
      x: z.array(z.unknown()),
    }),
  ],
  [
    'parts zod checks itself: exact optionals, checks, unions, strict objects',
    z.object({
      a: z.exactOptional(z.string()),
      b: z.optional(z.int()),
      c: z.optional(z.union([z.number(), z.string().check(z.minLength(1))])),
      d: z.optional(z.strictObject({ e: z.boolean() })),
      x: z.optional(z.array(z.number()).check(z.maxLength(2))),
    }),
  ],
];

describe('the Node build’s check of a valid body', () => {
  for (const [name, schema] of edgeSchemas) {
    it(`accepts exactly what zod’s parse accepts: ${name}`, () => {
      const check = compiledCheck(schema);
      if (check === undefined) throw new Error('expected a check');
      let accepted = 0;
      fc.assert(
        fc.property(near(schema), (body) => {
          const expected = z.safeParse(schema, body).success;
          if (expected) accepted++;
          expect(check(body)).toBe(expected);
        }),
        { numRuns: 2_000 },
      );
      // Both answers were tried.
      expect(accepted).toBeGreaterThan(20);
    });
  }

  it('accepts exactly what zod’s parse accepts for every response and webhook schema, near-valid bodies', () => {
    const bodies: [Schema, () => unknown][] = [
      [schemas.Task, () => sampleTask(1)],
      [
        schemas.TaskListResponse,
        () => ({ tasks: [sampleTask(1), sampleTask(2)], page: 1, limit: 2, totalPages: 1, total: 2 }),
      ],
      [schemas.TaskCreateResponse, () => ({ data: { createTask: sampleTask(3) } })],
      [schemas.Estimate, () => ({ travelDetail: { totalDistance: 10.6 }, price: 1.5, currency: 'KWD' })],
      [schemas.BranchListResponse, () => ({ branches: [{ id: 'b1', name: 'Main' }] })],
      [schemas.WalletBalance, () => ({ walletAmount: 12.5 })],
      [schemas.WalletTopUp, () => ({ paymentUrl: 'https://pay.test/1' })],
      [schemas.WebhookTask, () => ({ ...sampleTask(4), _id: 'task-4' })],
    ];
    for (const [schema, valid] of bodies) {
      const check = compiledCheck(schema);
      if (check === undefined) throw new Error('expected a check');
      expect(check(valid())).toBe(true);
      let refused = 0;
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.nat(), value), { maxLength: 3 }), (changes) => {
          // Replaces or removes fields at any depth of a valid body.
          const body = valid();
          for (const [at, replacement] of changes) {
            const paths = fieldPaths(body);
            const path = paths[at % paths.length];
            if (path === undefined) continue;
            const [owner, key] = path;
            if (replacement === undefined && at % 2 === 0) delete owner[key];
            else owner[key] = replacement;
          }
          const expected = z.safeParse(schema, body).success;
          if (!expected) refused++;
          expect(check(body)).toBe(expected);
        }),
        { numRuns: 300 },
      );
      expect(refused).toBeGreaterThan(0);
    }
  });
});

describe('the Node build’s check, garbage', () => {
  it('allocates nothing while checking valid tasks: 60 000 checks see at most one collection', async () => {
    const check = compiledCheck(schemas.Task);
    if (check === undefined) throw new Error('expected a check');
    const task = sampleTask(5);
    for (let warm = 0; warm < 2_000; warm++) check(task);
    // This worker runs other test files too: their garbage (a young generation nearly full, a marking
    // under way) is collected first, so what the observer sees is the checks' own.
    collectGarbage();
    const collections: PerformanceEntry[] = [];
    const observer = new PerformanceObserver((list) => collections.push(...list.getEntries()));
    observer.observe({ entryTypes: ['gc'] });
    let valid = 0;
    const started = performance.now();
    // zod's compiled check made a function per optional field and call, about 2 KB a task: 120 MB here.
    for (let run = 0; run < 60_000; run++) if (check(task)) valid++;
    const ended = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
    observer.disconnect();
    expect(valid).toBe(60_000);
    const during = collections.filter((entry) => entry.startTime >= started && entry.startTime <= ended);
    expect(during.length).toBeLessThanOrEqual(1);
  });
});

/** Every field of `body` at any depth, as its owner and key. */
function fieldPaths(body: unknown): [Record<string, unknown>, string][] {
  const paths: [Record<string, unknown>, string][] = [];
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    const owner = node as Record<string, unknown>;
    for (const key of Object.keys(owner)) {
      paths.push([owner, key]);
      visit(owner[key]);
    }
  };
  visit(body);
  return paths;
}
