import { describe, expect, it } from 'vitest';
import { routeOf, segmentsAfterCollection, serviceAddress } from '../../src/testing/routes.js';

describe('serviceAddress', () => {
  it('serves both forms under the root of a bare host', () => {
    expect(serviceAddress('https://delivery.test')).toEqual({
      baseUrl: 'https://delivery.test',
      origin: 'https://delivery.test',
      collections: ['/tasks', '/rest/tasks'],
    });
  });

  it('drops a trailing slash and a trailing /rest to find the root, keeping a path prefix', () => {
    const address = serviceAddress('https://h.test/api/rest/');
    expect(address.baseUrl).toBe('https://h.test/api/rest');
    expect(address.collections).toEqual(['/api/tasks', '/api/rest/tasks']);
  });

  it('keeps a prefix that only ends like rest', () => {
    expect(serviceAddress('https://h.test/interest').collections).toEqual([
      '/interest/tasks',
      '/interest/rest/tasks',
    ]);
  });

  it('refuses what is not an absolute http(s) URL without query or fragment', () => {
    expect(() => serviceAddress('delivery.test')).toThrow(TypeError);
    expect(() => serviceAddress('ftp://delivery.test')).toThrow(TypeError);
    expect(() => serviceAddress('https://delivery.test/?a=1')).toThrow(TypeError);
    expect(() => serviceAddress('https://delivery.test/#x')).toThrow(TypeError);
  });
});

describe('segmentsAfterCollection', () => {
  const address = serviceAddress('https://h.test/api');

  it('finds the segments after either collection path', () => {
    expect(segmentsAfterCollection(address, new URL('https://h.test/api/tasks'))).toEqual([]);
    expect(segmentsAfterCollection(address, new URL('https://h.test/api/tasks/'))).toEqual([]);
    expect(segmentsAfterCollection(address, new URL('https://h.test/api/rest/tasks/abc'))).toEqual(['abc']);
  });

  it('ignores other hosts, other prefixes and look-alike paths', () => {
    expect(segmentsAfterCollection(address, new URL('https://other.test/api/tasks'))).toBeUndefined();
    expect(segmentsAfterCollection(address, new URL('https://h.test/tasks'))).toBeUndefined();
    expect(segmentsAfterCollection(address, new URL('https://h.test/api/taskschedule'))).toBeUndefined();
  });
});

describe('routeOf', () => {
  it('routes the collection by method', () => {
    expect(routeOf('GET', [])).toEqual({ operation: 'tasks.list', params: {} });
    expect(routeOf('POST', [])).toEqual({ operation: 'tasks.create', params: {} });
    expect(routeOf('DELETE', [])).toEqual({
      operation: 'unknown',
      problem: 'method-not-allowed',
      allow: 'POST, GET',
    });
  });

  it('routes the fixed sub-paths', () => {
    expect(routeOf('GET', ['wallet-balance'])).toEqual({ operation: 'wallet.retrieveBalance', params: {} });
    expect(routeOf('POST', ['wallet-topup'])).toEqual({ operation: 'wallet.topUp', params: {} });
    expect(routeOf('POST', ['estimate'])).toEqual({ operation: 'tasks.estimate', params: {} });
    expect(routeOf('GET', ['branches'])).toEqual({ operation: 'branches.list', params: {} });
    expect(routeOf('GET', ['estimate'])).toMatchObject({
      operation: 'unknown',
      problem: 'method-not-allowed',
    });
  });

  it('decodes a task id without letting it name another route', () => {
    expect(routeOf('GET', ['..%2Fwallet-balance'])).toEqual({
      operation: 'tasks.retrieve',
      params: { id: '../wallet-balance' },
    });
    expect(routeOf('GET', ['wallet%2Dbalance'])).toEqual({
      operation: 'tasks.retrieve',
      params: { id: 'wallet-balance' },
    });
    expect(routeOf('GET', ['%E0%A4%A'])).toEqual({
      operation: 'unknown',
      problem: 'malformed-param',
      param: 'id',
    });
    expect(routeOf('GET', ['abc', 'def'])).toEqual({ operation: 'unknown', problem: 'not-found' });
  });
});
