/**
 * An operation is added in one place (CONTRIBUTING.md "Adding an operation"): the table of operations
 * (src/core/operations.ts), one resource method and one mock handler. Everything else the mock knows about
 * operations comes from the table, and a handler map that lacks an operation does not compile.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  OPERATION_NAMES,
  OPERATIONS,
  type OperationInput,
  type OperationName,
  requestOf,
} from '../../src/core/operations.js';
import type { HttpRequest } from '../../src/internal/http-request.js';
import { pathOf } from '../../src/internal/path.js';
import { OPERATION_HANDLERS, type OperationHandlers } from '../../src/testing/endpoints.js';
import { checkFaultRule, OPERATIONS as FAULT_TARGETS } from '../../src/testing/faults.js';
import { routeOf, routerOf } from '../../src/testing/routes.js';
import type { MockFaultRule, MockOperation } from '../../src/testing/types.js';

/** `template` with each `{param}` replaced by `value`, as the segments after `/tasks`. */
function segmentsOf(template: string, value: string): string[] {
  return template
    .split('/')
    .slice(2)
    .map((segment) => (segment.startsWith('{') ? value : segment));
}

describe('the mock derives its operations from the table', () => {
  it('names its operations with the table: MockOperation is OperationName', () => {
    expectTypeOf<MockOperation>().toEqualTypeOf<OperationName>();
  });

  it('has one handler for each operation of the table, and a map missing one does not compile', () => {
    expect(Object.keys(OPERATION_HANDLERS)).toEqual(OPERATION_NAMES);
    const { 'wallet.topUp': _omitted, ...allButOne } = OPERATION_HANDLERS;
    // @ts-expect-error: 'wallet.topUp' is missing, so this is not a handler map.
    const incomplete: OperationHandlers = allButOne;
    expect(Object.keys(incomplete)).not.toContain('wallet.topUp');
  });

  it('routes every operation of the table by its method and template', () => {
    for (const name of OPERATION_NAMES) {
      const { method, path } = OPERATIONS[name];
      const params = Object.fromEntries(
        [...path.matchAll(/\{(\w+)\}/g)].map(([, param]) => [param, 'a b/c']),
      );
      expect(routeOf(method, segmentsOf(path, 'a%20b%2Fc')), name).toEqual({ operation: name, params });
    }
  });

  it('accepts fault rules for exactly the operations of the table', () => {
    expect(FAULT_TARGETS).toEqual(OPERATION_NAMES);
    for (const operation of OPERATION_NAMES) {
      expect(() => checkFaultRule({ kind: 'network-error', operation })).not.toThrow();
    }
    const unknown = { kind: 'network-error', operation: 'tasks.cancel' } as unknown as MockFaultRule;
    expect(() => checkFaultRule(unknown)).toThrow(TypeError);
  });
});

describe('routing a table-like entry with a verb after the id', () => {
  const route = routerOf({
    ...OPERATIONS,
    'tasks.cancel': { method: 'POST', path: '/tasks/{id}/cancel' },
  });

  it('routes /tasks/{id}/cancel with the id decoded', () => {
    expect(route('POST', ['abc', 'cancel'])).toEqual({ operation: 'tasks.cancel', params: { id: 'abc' } });
    expect(route('POST', ['a%2Fb', 'cancel'])).toEqual({ operation: 'tasks.cancel', params: { id: 'a/b' } });
  });

  it('keeps the other routes, and answers 405 or 404 around the new one', () => {
    expect(route('GET', ['abc'])).toEqual({ operation: 'tasks.retrieve', params: { id: 'abc' } });
    expect(route('POST', ['estimate'])).toEqual({ operation: 'tasks.estimate', params: {} });
    expect(route('GET', ['abc', 'cancel'])).toEqual({
      operation: 'unknown',
      problem: 'method-not-allowed',
      allow: 'POST',
    });
    expect(route('POST', ['abc', 'cancelled'])).toEqual({ operation: 'unknown', problem: 'not-found' });
    expect(route('POST', ['%E0%A4%A', 'cancel'])).toEqual({
      operation: 'unknown',
      problem: 'malformed-param',
      param: 'id',
    });
  });

  it('prefers a fixed segment to a parameter', () => {
    const withFixed = routerOf({
      'tasks.cancel': { method: 'POST', path: '/tasks/{id}/cancel' },
      'tasks.cancelAll': { method: 'POST', path: '/tasks/all/cancel' },
    });
    expect(withFixed('POST', ['all', 'cancel'])).toEqual({ operation: 'tasks.cancelAll', params: {} });
    expect(withFixed('POST', ['al%6C', 'cancel'])).toEqual({
      operation: 'tasks.cancel',
      params: { id: 'all' },
    });
  });

  it('refuses a template outside the tasks collection', () => {
    expect(() => routerOf({ 'x.y': { method: 'GET', path: '/other' } })).toThrow(TypeError);
  });
});

describe('requests and spans from the table', () => {
  it('names each request, and so its span, with an operation of the table', () => {
    expectTypeOf<HttpRequest['operation']>().toEqualTypeOf<OperationName>();
  });

  it('fills a template with its parameters, percent-encoded', () => {
    const { path } = OPERATIONS['tasks.retrieve'];
    expect(pathOf(path, { id: '../wallet-balance' }, 'tasks.retrieve')).toBe('tasks/..%2Fwallet-balance');
    expect(pathOf(OPERATIONS['wallet.topUp'].path, {}, 'wallet.topUp')).toBe('tasks/wallet-topup');
    expect(() => pathOf(path, { id: '..' }, 'tasks.retrieve')).toThrow(/"\.\."/);
    expect(requestOf('tasks.retrieve')).toEqual({
      operation: 'tasks.retrieve',
      method: 'GET',
      path: 'tasks/{id}',
      urlTemplate: '/tasks/{id}',
      retry: 'idempotent',
    });
    expectTypeOf<OperationInput<'tasks.retrieve'>>().toEqualTypeOf<Readonly<Record<'id', string>>>();
    // tasks.list has no path parameter; wallet.topUp's input is its body's fields.
    expectTypeOf<{ id: string }>().not.toMatchTypeOf<OperationInput<'tasks.list'>>();
    expectTypeOf<{ amount: number }>().toMatchTypeOf<OperationInput<'wallet.topUp'>>();
  });
});
