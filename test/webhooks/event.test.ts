import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod/mini';
import { WebhookPayloadError } from '../../src/core/errors.js';
import type { SchemaDrift } from '../../src/core/options.js';
import { compiledCheck } from '../../src/internal/copy-free.js';
import { useSchemaCompiler } from '../../src/internal/validate.js';
import type { AnyTaskStatus, Task } from '../../src/schemas/task.js';
import {
  parseWebhookEvent,
  WEBHOOK_EVENT_KINDS,
  type WebhookEvent,
  type WebhookEventKind,
  type WebhookReading,
  WebhookTask,
} from '../../src/webhooks/index.js';
import { webhookBody } from './fixtures.js';

function payloadErrorOf(body: unknown, reading: WebhookReading = {}): WebhookPayloadError {
  try {
    parseWebhookEvent(body, reading);
  } catch (error) {
    if (error instanceof WebhookPayloadError) return error;
    throw error;
  }
  throw new Error('expected a WebhookPayloadError');
}

describe('parseWebhookEvent', () => {
  it.each(WEBHOOK_EVENT_KINDS)('parses a %s webhook into an unconfirmed event of that kind', (kind) => {
    const before = Date.now();
    const event = parseWebhookEvent(webhookBody('task-1', kind));
    expect(event).toMatchObject({ kind, status: kind, taskId: 'task-1', confirmed: false });
    expect(event.task).toBe(event.payload);
    expect(event.receivedAt.getTime()).toBeGreaterThanOrEqual(before);
  });

  it('accepts an unknown event kind as it is', () => {
    const event = parseWebhookEvent(webhookBody('task-1', 'driver_reassigned'));
    expect(event.kind).toBe('driver_reassigned');
    expect(event.status).toBe('driver_reassigned');
  });

  it('reads the webhook forms of the locations, the price, the wallet flag and the driver completion time', () => {
    const { payload } = parseWebhookEvent(webhookBody('task-1', 'delivered'));
    expect(payload.deliveryLocation).toEqual({
      lat: 29.3397,
      lng: 48.0748,
      kwAddress: ['Block 10', 'Street 5', 'Building 12'],
      fullAddress: ['Salmiya, Block 10, Street 5, Building 12'],
    });
    expect(payload.pickupLocation).toEqual({
      longitude: 47.9774,
      latitude: 29.3759,
      fullAddress: ['Kuwait City', 'Block 1, Street 2'],
    });
    expect(payload.estimatedPrice).toBe('1.250');
    expect(payload.walletDeducted).toBe(true);
    expect(payload.driver?.completed_at).toBe('2026-11-21T09:45:00.000Z');
    expect(payload.alternateCustomerNumber).toBe('');
    expect(payload.statusHistory?.at(-1)).toEqual({
      status: 'delivered',
      timestamp: '2026-11-21T09:06:00.000Z',
    });
    expect(payload.statusHistory?.every((entry) => entry.id === undefined)).toBe(true);
  });

  it('takes the task id from _id, falling back to id', () => {
    expect(parseWebhookEvent(webhookBody('from-underscore', 'accepted', { id: 'other' })).taskId).toBe(
      'from-underscore',
    );
    expect(parseWebhookEvent(webhookBody('x', 'accepted', { _id: undefined, id: 'from-id' })).taskId).toBe(
      'from-id',
    );
    expect(parseWebhookEvent(webhookBody('x', 'accepted', { _id: null, id: 'from-id' })).taskId).toBe(
      'from-id',
    );
  });

  it('accepts the body as JSON text, bytes, an ArrayBuffer and a Buffer', () => {
    const text = JSON.stringify(webhookBody('task-9', 'enroute'));
    const bytes = new TextEncoder().encode(text);
    for (const body of [text, bytes, bytes.buffer, Buffer.from(text), new DataView(bytes.buffer)]) {
      const event = parseWebhookEvent(body);
      expect(event.taskId).toBe('task-9');
      expect(event.kind).toBe('enroute');
    }
  });

  it('reads a view into a larger buffer only within its bounds', () => {
    const text = JSON.stringify({ _id: 'task-9', status: 'enroute' });
    const padded = new TextEncoder().encode(`xxxx${text}yyyy`);
    const view = new Uint8Array(padded.buffer, 4, padded.byteLength - 8);
    expect(parseWebhookEvent(view).taskId).toBe('task-9');
  });

  it('keeps unknown fields at the top level and inside nested objects', () => {
    const body = webhookBody('task-1', 'pickedup', {
      newTopLevel: { deep: [1, { x: 'y' }] },
      driver: { name: 'Ahmad', vehiclePlate: '12/34567' },
      deliveryLocation: { lat: 29.3, lng: 48, floor: 3 },
      statusHistory: [{ status: 'pickedup', timestamp: '2026-11-21T09:00:00Z', by: 'driver' }],
      dispatchwebhookrequest: { provider: { raw: true } },
    });
    const { payload } = parseWebhookEvent(JSON.stringify(body));
    expect(payload.newTopLevel).toEqual({ deep: [1, { x: 'y' }] });
    expect(payload.driver).toEqual({ name: 'Ahmad', vehiclePlate: '12/34567' });
    expect(payload.deliveryLocation).toEqual({ lat: 29.3, lng: 48, floor: 3 });
    expect(payload.statusHistory?.[0]).toEqual({
      status: 'pickedup',
      timestamp: '2026-11-21T09:00:00Z',
      by: 'driver',
    });
    expect(payload.dispatchwebhookrequest).toEqual({ provider: { raw: true } });
  });

  it('treats null members as absent, at every level', () => {
    const body = webhookBody('task-1', 'accepted', {
      driver: { name: null, phone: '+965', trackingLink: null },
      deliveryTime: null,
      pickupLocation: null,
      travelDetail: { totalDistance: null, hasTraffic: false },
      statusHistory: [{ status: 'accepted', timestamp: null }],
    });
    const { payload } = parseWebhookEvent(JSON.stringify(body));
    expect(payload.driver).toEqual({ phone: '+965' });
    expect('deliveryTime' in payload).toBe(false);
    expect('pickupLocation' in payload).toBe(false);
    expect(payload.travelDetail).toEqual({ hasTraffic: false });
    expect(payload.statusHistory).toEqual([{ status: 'accepted' }]);
  });

  it('does not let __proto__ keys change a prototype, in text or in a parsed object', () => {
    const text =
      '{"_id":"t","status":"accepted","__proto__":{"polluted":1},"driver":{"__proto__":{"polluted":2}},' +
      '"statusHistory":[{"__proto__":{"polluted":3},"status":"accepted"}],"constructor":{"prototype":{"polluted":4}}}';
    const event = parseWebhookEvent(text);
    const fromObject = parseWebhookEvent(JSON.parse(text));
    for (const { payload } of [event, fromObject]) {
      expect(Object.getPrototypeOf(payload)).toBe(Object.prototype);
      expect(Object.getPrototypeOf(payload.driver)).toBe(Object.prototype);
      expect(Object.hasOwn(payload, '__proto__')).toBe(false);
      expect((payload as Record<string, unknown>).polluted).toBeUndefined();
      expect((payload.driver as Record<string, unknown>).polluted).toBeUndefined();
      expect(payload.statusHistory?.[0]).toEqual({ status: 'accepted' });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['a missing _id', { _id: undefined }, '_id'],
    ['an empty _id', { _id: '' }, '_id'],
    ['an _id that is an object', { _id: { value: 'task-1' } }, '_id'],
    ['an _id longer than 128 characters', { _id: 'a'.repeat(129) }, '_id'],
    ['an _id with a control character', { _id: 'task\n1' }, '_id'],
    ['an _id with DEL', { _id: 'task\u007f' }, '_id'],
    ['an empty id without _id', { _id: undefined, id: '' }, 'id'],
    ['a missing status', { status: undefined }, 'status'],
    ['a status that is an object', { status: { kind: 'accepted' } }, 'status'],
    ['an empty status', { status: '' }, 'status'],
  ])(
    'rejects %s (load-bearing) with a WebhookPayloadError naming the field, in every mode',
    (_title, overrides, field) => {
      for (const validation of ['tolerant', 'strict'] as const) {
        const error = payloadErrorOf(webhookBody('task-1', 'accepted', overrides), { validation });
        expect(error.field).toBe(field);
        expect(error.message).toContain(field);
        expect(error.name).toBe('WebhookPayloadError');
      }
    },
  );

  it.each([
    ['an _id that is a number', { _id: 42 }, '_id', '_id', '42'],
    ['a status that is a number', { status: 3 }, 'status', 'status', '3'],
    [
      'a statusHistory that is not an array',
      { statusHistory: 'accepted' },
      'statusHistory',
      'statusHistory',
      undefined,
    ],
    [
      'a history entry that is not an object',
      { statusHistory: [null] },
      'statusHistory.0',
      'statusHistory',
      [],
    ],
    [
      'walletDeducted that is not a boolean',
      { walletDeducted: 'yes' },
      'walletDeducted',
      'walletDeducted',
      undefined,
    ],
    [
      'a delivery lat that is numeric text',
      { deliveryLocation: { lat: '29.3' } },
      'deliveryLocation.lat',
      'deliveryLocation.lat',
      29.3,
    ],
    [
      'kwAddress holding a number',
      { deliveryLocation: { kwAddress: [1] } },
      'deliveryLocation.kwAddress.0',
      'deliveryLocation.kwAddress',
      ['1'],
    ],
    ['a driver that is not an object', { driver: 'Ahmad' }, 'driver', 'driver', undefined],
  ])(
    'rejects %s only in strict mode; tolerant reading coerces it or leaves it out, and reports it',
    (_title, overrides, field, readPath, read) => {
      const error = payloadErrorOf(webhookBody('task-1', 'accepted', overrides), { validation: 'strict' });
      expect(error.field).toBe(field);
      const drifts: SchemaDrift[] = [];
      const event = parseWebhookEvent(webhookBody('task-1', 'accepted', overrides), {
        onDrift: (drift) => drifts.push(drift),
      });
      const value = readPath
        .split('.')
        .reduce<unknown>(
          (current, key) => (current as Record<string, unknown> | undefined)?.[key],
          event.payload,
        );
      expect(value).toStrictEqual(read);
      expect(drifts.map((drift) => `${drift.operation} ${drift.path}`)).toContain(`webhook ${field}`);
    },
  );

  it.each([
    ['JSON text', (text: string) => text],
    ['UTF-8 bytes', (text: string) => new TextEncoder().encode(text)],
    ['an object', (text: string) => JSON.parse(text) as unknown],
  ])('reads null members of %s as absent, at any depth, and drops __proto__ keys', (_title, encode) => {
    const text = `{"__proto__":{"polluted":true},${JSON.stringify({
      ...webhookBody('task-1', 'accepted'),
      specialNotes: null,
      extra: { a: null, list: [null, { b: null }] },
    }).slice(1)}`;
    const { payload } = parseWebhookEvent(encode(text));
    expect('specialNotes' in payload).toBe(false);
    expect(payload.extra).toEqual({ list: [null, {}] });
    expect(Object.getPrototypeOf(payload)).toBe(Object.prototype);
    expect(Object.hasOwn(payload, '__proto__')).toBe(false);
  });

  it('leaves an object body as it was given, null members included', () => {
    const body = { ...webhookBody('task-1', 'accepted'), specialNotes: null, extra: { a: null } };
    const event = parseWebhookEvent(body);
    expect(body.specialNotes).toBeNull();
    expect(body.extra).toEqual({ a: null });
    expect('specialNotes' in event.payload).toBe(false);
    expect(event.payload.extra).toEqual({});
  });

  it('accepts a task id of exactly 128 characters', () => {
    expect(parseWebhookEvent(webhookBody('a'.repeat(128), 'accepted')).taskId).toHaveLength(128);
  });

  it.each([
    ['text that is not JSON', '{"_id": "t", status:'],
    ['bytes that are not UTF-8', new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])],
    ['an empty string', ''],
    ['a JSON array', '[{"_id":"t","status":"accepted"}]'],
    ['a JSON string', '"accepted"'],
    ['JSON null', 'null'],
    ['a number', 42],
    ['undefined', undefined],
    [
      'an object nested 100 levels deep',
      `{"_id":"t","status":"x","deep":${'['.repeat(100)}${']'.repeat(100)}}`,
    ],
  ])('rejects %s as a body with no field named', (_title, body) => {
    const error = payloadErrorOf(body);
    expect(error.field).toBe('');
  });

  it('does not quote the body in the error when it is not JSON', () => {
    const error = payloadErrorOf('{"sellerId":"seller-secret-1", oops}');
    expect(error.message).not.toContain('seller-secret-1');
  });

  it('types the event: unconfirmed events carry the webhook task, confirmed ones the API task', () => {
    const event = parseWebhookEvent(webhookBody('task-1', 'accepted'));
    expectTypeOf(event.confirmed).toEqualTypeOf<false>();
    expectTypeOf(event.task).toEqualTypeOf<WebhookTask>();
    expectTypeOf(event.kind).toEqualTypeOf<WebhookEventKind>();
    expectTypeOf<Extract<WebhookEvent, { confirmed: true }>['task']>().toEqualTypeOf<Task>();
    expectTypeOf<Extract<WebhookEvent, { confirmed: true }>['status']>().toEqualTypeOf<AnyTaskStatus>();
    expectTypeOf<WebhookTask['estimatedPrice']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<NonNullable<WebhookTask['deliveryLocation']>['kwAddress']>().toEqualTypeOf<
      string[] | undefined
    >();
  });
});

/** JSON values without null, for fields that must come back exactly as sent. */
const jsonWithoutNull = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
    fc.boolean(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.string().filter((key) => key !== '__proto__'),
      tie('value'),
      { maxKeys: 4 },
    ),
  ),
})).value;

describe('parseWebhookEvent with generated input', () => {
  it('throws nothing but WebhookPayloadError for any JSON text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string()), (text) => {
        try {
          parseWebhookEvent(text);
        } catch (error) {
          expect(error).toBeInstanceOf(WebhookPayloadError);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('throws nothing but WebhookPayloadError for any value, odd objects included', () => {
    const odd = fc.anything({
      withBoxedValues: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withTypedArray: true,
      withSparseArray: true,
      withDate: true,
      withBigInt: true,
    });
    const webhookLike = fc.record({
      _id: fc.anything(),
      status: fc.anything(),
      statusHistory: odd,
      driver: odd,
    });
    fc.assert(
      fc.property(fc.oneof(odd, webhookLike), (body) => {
        try {
          parseWebhookEvent(body);
        } catch (error) {
          expect(error).toBeInstanceOf(WebhookPayloadError);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('keeps every unknown field exactly as sent', () => {
    const known = new Set(Object.keys(WebhookTask.shape));
    const unknownFields = fc.dictionary(
      fc.string({ minLength: 1 }).filter((key) => !known.has(key) && key !== '__proto__'),
      jsonWithoutNull,
      { maxKeys: 5 },
    );
    fc.assert(
      fc.property(unknownFields, fc.constantFrom(...WEBHOOK_EVENT_KINDS), (extra, kind) => {
        const body = { ...extra, _id: 'task-1', status: kind };
        const { payload } = parseWebhookEvent(JSON.stringify(body));
        for (const [key, value] of Object.entries(extra)) expect(payload[key]).toEqual(value);
      }),
      { numRuns: 300 },
    );
  });

  it('never changes a prototype, wherever __proto__ keys appear', () => {
    const withProto = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string(),
        fc.integer(),
        fc.array(tie('value'), { maxLength: 3 }),
        fc
          .tuple(fc.dictionary(fc.string(), tie('value'), { maxKeys: 3 }), fc.boolean())
          .map(([members, poison]) =>
            poison ? { ...members, ['__proto__' as string]: { polluted: 'yes' } } : members,
          ),
      ),
    })).value;
    fc.assert(
      fc.property(withProto, (extra) => {
        // JSON.stringify writes an own __proto__ member like any other key.
        const text = JSON.stringify({ extra, _id: 'task-1', status: 'accepted' }).replace(
          '{"extra"',
          '{"__proto__":{"polluted":"yes"},"extra"',
        );
        const { payload } = parseWebhookEvent(text);
        expect((payload as Record<string, unknown>).polluted).toBeUndefined();
        expect(JSON.stringify(payload)).not.toContain('polluted');
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});

describe("parseWebhookEvent with the Node build's generated check", () => {
  /** Runs `read` with the Node build's compiler and check installed, then without them again. */
  function withNodeCheck<T>(read: () => T): T {
    useSchemaCompiler(z.compile, compiledCheck);
    try {
      return read();
    } finally {
      useSchemaCompiler(undefined);
    }
  }

  /** The event, or the issues of its `WebhookPayloadError`. */
  function outcome(body: unknown): unknown {
    try {
      const { receivedAt: _receivedAt, ...event } = parseWebhookEvent(body);
      return event;
    } catch (error) {
      if (error instanceof WebhookPayloadError) return error.issues;
      throw error;
    }
  }

  it('takes a valid body as its own payload: its fields in the order they came, none copied', () => {
    const body = { zeta: { b: 1, a: 2 }, ...webhookBody('task-1', 'delivered'), alpha: 'x' };
    const { payload } = withNodeCheck(() => parseWebhookEvent(JSON.stringify(body)));
    expect(Object.keys(payload)).toEqual(Object.keys(body));
    expect(Object.keys(payload.zeta as object)).toEqual(['b', 'a']);
    expect(payload).toEqual(body);
  });

  it('reads every body as the runtime parser does: the same event, or the same issues', () => {
    const nearWebhook = fc.record(
      {
        _id: fc.oneof(fc.constantFrom('task-1', '', 'a\u0000b'), fc.integer()),
        id: fc.oneof(fc.string({ maxLength: 4 }), fc.integer()),
        status: fc.oneof(fc.constantFrom(...WEBHOOK_EVENT_KINDS, 'new-kind', ''), fc.boolean()),
        collectCash: fc.oneof(fc.boolean(), fc.string({ maxLength: 3 })),
        deliveryLocation: fc.oneof(
          fc.record({ lat: fc.oneof(fc.double(), fc.string()), kwAddress: fc.array(fc.string()) }),
          fc.string(),
        ),
        statusHistory: fc.oneof(
          fc.array(fc.record({ status: fc.oneof(fc.string(), fc.integer()), extra: jsonWithoutNull })),
          fc.integer(),
        ),
        unknownField: jsonWithoutNull,
      },
      { requiredKeys: [] },
    );
    let events = 0;
    fc.assert(
      fc.property(nearWebhook, (body) => {
        const text = JSON.stringify(body);
        const expected = outcome(text);
        if (!Array.isArray(expected)) events++;
        expect(withNodeCheck(() => outcome(text))).toEqual(expected);
      }),
      { numRuns: 500 },
    );
    // Both answers were tried.
    expect(events).toBeGreaterThan(20);
  });
});
