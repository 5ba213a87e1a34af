/**
 * Properties of tolerant reading (README "Schema drift"), over every operation of the table and the
 * webhook body: any leaf of a valid answer mutated by any drift kind is either read back (the result
 * always has the schema's types) or, only when the leaf is load-bearing, refused. Then, end to end over
 * the mock: drifted creates pay once, drifted webhooks are answered 200 and processed once.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { sampleTask } from '../../bench/support/sample-task.js';
import { OPERATION_NAMES, OPERATIONS, type OperationName } from '../../src/core/operations.js';
import { DeliveryClient, ResponseValidationError } from '../../src/index.js';
import { Redactor } from '../../src/internal/redact.js';
import { parseResponse, safeParse } from '../../src/internal/validate.js';
import { BranchListResponse } from '../../src/schemas/branch-list.js';
import type { Drift } from '../../src/schemas/tolerant-read.js';
import { WebhookTask } from '../../src/schemas/webhook.js';
import { driftedValue } from '../../src/testing/drift.js';
import { createMockDeliveryService, DRIFT_MUTATIONS, type MockDriftMutation } from '../../src/testing.js';
import { createWebhookHandler, parseWebhookEvent, type WebhookEvent } from '../../src/webhooks/index.js';
import { orderParams } from '../support/order-params.js';
import { webhookBody } from '../webhooks/fixtures.js';

/** A valid answer of each operation, every documented field set. */
const ANSWERS: Record<OperationName, unknown> = {
  'tasks.create': { data: { createTask: sampleTask(1) } },
  'tasks.retrieve': sampleTask(2),
  'tasks.list': { tasks: [sampleTask(3), sampleTask(4)], page: 1, limit: 10, totalPages: 1, total: 2 },
  'tasks.estimate': { price: 1.75, travelDetail: sampleTask(5).travelDetail },
  'branches.list': {
    branches: [
      { id: 'b1', name: 'Salmiya' },
      { id: 'b2', name: 'Hawalli' },
    ],
  },
  'wallet.retrieveBalance': { walletAmount: 98.185 },
  'wallet.topUp': { paymentUrl: 'https://pay.test/p/1', amount: 10, expiresAt: '2026-11-25T00:00:00Z' },
};

type Path = (string | number)[];

/** Every path to a primitive leaf of `value`. */
function leaves(value: unknown, path: Path = []): Path[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => leaves(item, [...path, index]));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, member]) => leaves(member, [...path, key]));
  }
  return [path];
}

function at(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((current, key) => (current as Record<string | number, unknown>)?.[key], value);
}

function withLeaf(value: unknown, path: Path, leaf: unknown): unknown {
  const copy = structuredClone(value);
  const parent = at(copy, path.slice(0, -1)) as Record<string | number, unknown>;
  parent[path.at(-1) as string | number] = leaf;
  return copy;
}

/** The drift kinds of README "Schema drift", and what a mutated leaf becomes. */
const DRIFT_KINDS = {
  numberAsText: (value: unknown) => (typeof value === 'number' ? String(value) : value),
  textAsNumber: (value: unknown) =>
    typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)
      ? Number(value)
      : typeof value === 'string'
        ? 123
        : value,
  booleanAsText: (value: unknown) => (typeof value === 'boolean' ? String(value) : value),
  booleanAsNumber: (value: unknown) => (typeof value === 'boolean' ? Number(value) : value),
  objectInstead: () => ({ unexpected: true }),
  arrayInstead: () => ['unexpected'],
  nullInstead: () => null,
};
type DriftKind = keyof typeof DRIFT_KINDS;
/** Kinds whose mutated leaf always reads back to a valid value of the documented type. */
const COERCIBLE: ReadonlySet<DriftKind> = new Set(['numberAsText', 'booleanAsText', 'booleanAsNumber']);

const redactor = new Redactor([]);
function tolerant(operation: string, drifts: Drift[]) {
  return {
    operation,
    method: 'GET',
    url: 'http://127.0.0.1/tasks',
    status: 200,
    mode: 'tolerant' as const,
    redactor,
    report: (reported: readonly Drift[]) => drifts.push(...reported),
  };
}

/** The dotted paths `schema` requires: the load-bearing fields (src/core/operations.ts). */
function requiredPaths(schema: z.core.$ZodType, prefix = ''): string[] {
  const def = schema._zod.def;
  if (def.type !== 'object') return [];
  return Object.entries((def as z.core.$ZodObjectDef).shape).flatMap(([key, field]) =>
    field._zod.optin === 'optional' ? [] : [`${prefix}${key}`, ...requiredPaths(field, `${prefix}${key}.`)],
  );
}

/**
 * The schema of an operation's answer: its row's `response`, or, for a row with a `read` of its own, the
 * schema that documents its answer.
 */
function answerSchema(operation: OperationName): z.ZodMiniType {
  const row = OPERATIONS[operation];
  return 'response' in row ? row.response : BranchListResponse;
}

/** True when `path` is, or lies inside, one of the operation's load-bearing fields. */
function isLoadBearing(operation: OperationName, path: Path): boolean {
  const text = path.join('.');
  return requiredPaths(answerSchema(operation)).some(
    (field) => text === field || text.startsWith(`${field}.`),
  );
}

describe('tolerant reading, as a property of every operation', () => {
  for (const operation of OPERATION_NAMES) {
    const schema = answerSchema(operation);
    const answer = ANSWERS[operation];

    it(`${operation}: the sample answer is valid as it is`, () => {
      expect(safeParse(schema, answer).success).toBe(true);
    });

    it(`${operation}: any drifted leaf is read back with honest types, or refused only when load-bearing`, () => {
      const paths = leaves(answer);
      fc.assert(
        fc.property(
          fc.subarray(paths, { minLength: 1, maxLength: Math.min(4, paths.length) }),
          fc.constantFrom(...(Object.keys(DRIFT_KINDS) as DriftKind[])),
          (chosen, kind) => {
            let body: unknown = answer;
            for (const path of chosen) body = withLeaf(body, path, DRIFT_KINDS[kind](at(answer, path)));
            const drifts: Drift[] = [];
            let read: unknown;
            try {
              read = parseResponse(schema, structuredClone(body), tolerant(operation, drifts));
            } catch (error) {
              expect(error).toBeInstanceOf(ResponseValidationError);
              expect(chosen.some((path) => isLoadBearing(operation, path))).toBe(true);
              expect(COERCIBLE.has(kind) && kind !== 'numberAsText').toBe(false);
              return;
            }
            // Honest types: what is returned passes the schema as it is.
            expect(z.safeParse(schema, read).success).toBe(true);
            if (COERCIBLE.has(kind)) {
              for (const path of chosen) {
                const original = at(answer, path);
                const readBack = at(read, path);
                // A documented leaf reads back to its value; an unknown one is kept as it came.
                if (readBack !== at(body, path)) expect(readBack).toStrictEqual(original);
              }
            }
            for (const drift of drifts) {
              expect(['coerced', 'omitted']).toContain(drift.action);
              expect(JSON.stringify(drift)).not.toMatch(/Fatima|\+965|seller-1/);
            }
          },
        ),
        { numRuns: 300, seed: 17 },
      );
    });
  }

  it("finds the load-bearing fields the SDK reads: a created task's id, a page's tasks, a top-up link", () => {
    expect(requiredPaths(OPERATIONS['tasks.create'].response)).toEqual([
      'data',
      'data.createTask',
      'data.createTask.id',
    ]);
    expect(requiredPaths(OPERATIONS['tasks.list'].response).sort()).toEqual(
      ['limit', 'page', 'tasks', 'total', 'totalPages'].sort(),
    );
    expect(requiredPaths(OPERATIONS['wallet.topUp'].response)).toEqual(['paymentUrl']);
    expect(requiredPaths(OPERATIONS['wallet.retrieveBalance'].response)).toEqual(['walletAmount']);
  });

  it('webhook bodies: any drifted leaf but the task id and status is taken, with honest types', () => {
    const body = webhookBody('task-1', 'enroute', { estimatedPrice: '1.250', walletDeducted: true });
    const paths = leaves(body).filter((path) => !['_id', 'status'].includes(String(path[0])));
    fc.assert(
      fc.property(
        fc.subarray(paths, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(...(Object.keys(DRIFT_KINDS) as DriftKind[])),
        (chosen, kind) => {
          let drifted: unknown = body;
          for (const path of chosen) drifted = withLeaf(drifted, path, DRIFT_KINDS[kind](at(body, path)));
          const event = parseWebhookEvent(drifted);
          expect(event.taskId).toBe('task-1');
          expect(event.kind).toBe('enroute');
          expect(z.safeParse(WebhookTask, event.payload).success).toBe(true);
        },
      ),
      { numRuns: 300, seed: 23 },
    );
  });
});

describe('end to end over the mock, under every drift mutation', () => {
  const mock = createMockDeliveryService({
    baseUrl: 'https://drift.test/rest',
    account: { type: 'wallet', balance: 5000 },
  });

  it('a create never pays twice, and every drifted webhook is answered 200 and processed once', async () => {
    mock.listen();
    try {
      const mutationSets = fc.sample(fc.subarray([...DRIFT_MUTATIONS], { minLength: 1 }), {
        numRuns: 12,
        seed: 5,
      });
      const events: WebhookEvent[] = [];
      const handler = createWebhookHandler({ onEvent: (event) => void events.push(event), logLevel: 'off' });
      for (const [index, mutations] of mutationSets.entries()) {
        mock.reset();
        mock.inject({
          kind: 'drift',
          mutations: mutations as MockDriftMutation[],
          times: Number.POSITIVE_INFINITY,
        });
        const client = new DeliveryClient({
          apiKey: mock.apiKey,
          sellerId: mock.sellerId,
          baseUrl: mock.baseUrl,
          logLevel: 'off',
        });
        const orderNumber = `ORD-PROP-${index}`;
        const [first, second] = await Promise.all([
          client.tasks.create(orderParams(orderNumber)),
          client.tasks.create(orderParams(orderNumber)),
        ]);
        const third = await client.tasks.create(orderParams(orderNumber));
        expect(new Set([first.id, second.id, third.id]).size).toBe(1);
        expect(mock.requestsFor('tasks.create')).toHaveLength(1);
        expect(mock.wallet.feesChargedFils).toBeGreaterThan(0);
        const listed = await client.tasks.list().toArray();
        expect(listed.map((task) => task.id)).toEqual([first.id]);

        const stored = mock.task(first.id);
        const payload = JSON.parse(JSON.stringify({ ...stored, _id: first.id, status: 'accepted' }));
        const drifted = driftedValue(payload, new Set(mutations));
        const response = await handler.fetch(
          new Request('https://shop.test/webhooks', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(drifted),
          }),
        );
        expect(response.status).toBe(200);
      }
      await handler.idle();
      expect(events).toHaveLength(mutationSets.length);
      expect(new Set(events.map((event) => event.taskId)).size).toBe(mutationSets.length);
    } finally {
      mock.close();
    }
  });
});
