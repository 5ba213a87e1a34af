import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile } from 'zod/mini';
import { safeParse, useSchemaCompiler } from '../../src/internal/validate.js';
import { TaskCreateParams, TaskListResponse } from '../../src/schemas.js';

/** Results of the SDK's parse without and with zod's compiler, for the same inputs. */
function bothWays(schema: Parameters<typeof safeParse>[0], inputs: readonly unknown[]) {
  const plain = inputs.map((input) => safeParse(schema, structuredClone(input)));
  useSchemaCompiler(compile);
  const compiled = inputs.map((input) => safeParse(schema, structuredClone(input)));
  return { plain, compiled };
}

const taskLike = fc.record(
  {
    id: fc.oneof(fc.string(), fc.integer()),
    status: fc.oneof(fc.constantFrom('pending', 'delivered', 'new-kind'), fc.boolean()),
    collectCash: fc.oneof(fc.boolean(), fc.string()),
    statusHistory: fc.oneof(fc.array(fc.record({ status: fc.string(), extra: fc.integer() })), fc.string()),
    travelDetail: fc.oneof(fc.record({ totalDistance: fc.double({ noNaN: true }) }), fc.constant('x')),
    unknownField: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

describe('the Node build’s schema compiler', () => {
  it('gives the same results and the same issues as the runtime parser', () => {
    const pages = fc.sample(
      fc.record(
        {
          tasks: fc.array(taskLike, { maxLength: 4 }),
          page: fc.integer(),
          limit: fc.oneof(fc.integer(), fc.double()),
          totalPages: fc.integer(),
          total: fc.integer(),
        },
        { requiredKeys: ['tasks'] },
      ),
      { numRuns: 300, seed: 9 },
    );
    const creates = fc.sample(
      fc.record(
        {
          orderNumber: fc.oneof(fc.string(), fc.integer()),
          selectedBranch: fc.string(),
          customPickup: fc.boolean(),
          deliveryLocation: fc.record({ latitude: fc.double(), longitude: fc.double() }),
          misspelt: fc.constant(undefined),
        },
        { requiredKeys: [] },
      ),
      { numRuns: 300, seed: 11 },
    );
    for (const [schema, inputs] of [
      [TaskListResponse, pages],
      [TaskCreateParams, creates],
    ] as const) {
      const { plain, compiled } = bothWays(schema, inputs);
      const failed = plain.filter((result) => !result.success).length;
      expect(failed).toBeGreaterThan(10);
      expect(failed).toBeLessThan(inputs.length);
      for (const [index, result] of plain.entries()) {
        const other = compiled[index];
        expect(other?.success).toBe(result.success);
        if (result.success && other?.success) expect(other.data).toEqual(result.data);
        if (!result.success && other && !other.success) {
          expect(other.error.issues.map((issue) => [issue.path, issue.code, issue.message])).toEqual(
            result.error.issues.map((issue) => [issue.path, issue.code, issue.message]),
          );
        }
      }
    }
  });
});
