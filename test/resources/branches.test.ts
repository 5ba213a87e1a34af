import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { type Branch, DeliveryClient, type SchemaDrift } from '../../src/index.js';
import { useMockService } from '../support/mock-service.js';

describe('branches.list against the mock', () => {
  const { mock, client } = useMockService({
    branches: ['Salmiya', { id: 'br-hawally', name: 'Hawally', area: 'Hawally' }],
  });

  it('gets tasks/branches with both auth headers and returns Branch[]', async () => {
    const branches = await client().branches.list();
    expect(branches.map((branch) => branch.name)).toEqual(['Salmiya', 'Hawally']);
    expect(branches[1]).toMatchObject({ id: 'br-hawally', area: 'Hawally' });
    const [request] = mock.requestsFor('branches.list');
    expect(request?.method).toBe('GET');
    expect(request?.path).toBe('/rest/tasks/branches');
    expect(request?.headers.authorization).toBe(`apikey ${mock.apiKey}`);
    expect(request?.headers['x-seller-id']).toBe(mock.sellerId);
  });

  it('types the result as Branch[]', () => {
    expectTypeOf(client().branches.list).returns.resolves.toEqualTypeOf<Branch[]>();
  });
});

describe('branches.list response shapes the spec leaves open', () => {
  const shapes: Record<string, object> = {
    envelope: {
      branches: [
        { id: '1', name: 'Salmiya' },
        { id: '2', name: 'Fahaheel' },
      ],
    },
    data: {
      data: [
        { id: '1', name: 'Salmiya' },
        { id: '2', name: 'Fahaheel' },
      ],
    },
    objects: [
      { id: '1', name: 'Salmiya' },
      { id: '2', name: 'Fahaheel' },
    ],
    strings: ['Salmiya', 'Fahaheel'],
  };
  const server = setupServer(
    http.get('https://shapes.test/tasks/branches', ({ request }) =>
      HttpResponse.json(shapes[new URL(request.url).searchParams.get('shape') ?? ''] ?? shapes.envelope),
    ),
  );
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterAll(() => server.close());

  it.each(Object.keys(shapes))(
    'normalises the %s shape to Branch[] with names, whatever the validation mode',
    async (shape) => {
      for (const validation of ['strict', 'warn', 'off'] as const) {
        // A custom fetch (a client option) adds the shape selector to the URL.
        const branches = await new DeliveryClient({
          apiKey: 'k',
          sellerId: 's',
          baseUrl: 'https://shapes.test',
          logLevel: 'off',
          validation,
          fetch: (input, init) => {
            const url = new URL(input instanceof Request ? input.url : String(input));
            url.searchParams.set('shape', shape);
            return fetch(input instanceof Request ? new Request(url, input) : url, init);
          },
        }).branches.list();
        expect(branches.map((branch) => branch.name)).toEqual(['Salmiya', 'Fahaheel']);
      }
    },
  );
});

describe('branches.list reads what it can of any 2xx body, and reports the rest as drift', () => {
  let answer: unknown;
  const server = setupServer(
    http.get(
      'https://drifting-branches.test/tasks/branches',
      () => new HttpResponse(JSON.stringify(answer), { headers: { 'content-type': 'application/json' } }),
    ),
  );
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterAll(() => server.close());

  async function listWith(body: unknown, validation: 'tolerant' | 'strict' = 'tolerant') {
    answer = body;
    const drifts: SchemaDrift[] = [];
    const branches = await new DeliveryClient({
      apiKey: 'k',
      sellerId: 's',
      baseUrl: 'https://drifting-branches.test',
      logLevel: 'off',
      validation,
      onDrift: (drift) => drifts.push(drift),
    }).branches.list();
    return { branches, drifts };
  }

  it('reads an array of branches under any property of an object', async () => {
    for (const validation of ['tolerant', 'strict'] as const) {
      const { branches, drifts } = await listWith({ items: [{ name: 'Salmiya' }], total: 1 }, validation);
      expect(branches).toEqual([{ name: 'Salmiya' }]);
      expect(drifts).toEqual([]);
      expect((await listWith({ results: ['Hawally'] }, validation)).branches).toEqual([{ name: 'Hawally' }]);
    }
  });

  it.each([
    ['{}', {}, 'undefined'],
    ['null', null, 'null'],
    ['a number', 42, 'number'],
    ['text', 'none', 'string'],
    ['an object without a list', { count: 3, branches: 'none' }, 'string'],
  ])('resolves [] for %s, in every mode, and reports the missing list', async (_case, body, received) => {
    for (const validation of ['tolerant', 'strict'] as const) {
      const { branches, drifts } = await listWith(body, validation);
      expect(branches).toEqual([]);
      expect(drifts).toEqual([
        { operation: 'branches.list', path: 'branches', expected: 'array', received, action: 'omitted' },
      ]);
    }
  });

  it('keeps the entries it can read, coerces a numeric name, and reports the others', async () => {
    const { branches, drifts } = await listWith({
      branches: [{ name: 'Salmiya', id: 1 }, { id: 'x' }, 5, 'Fahaheel', { name: 7 }],
    });
    expect(branches).toEqual([{ name: 'Salmiya', id: '1' }, { name: 'Fahaheel' }, { name: '7' }]);
    expect(drifts).toEqual([
      {
        operation: 'branches.list',
        path: 'branches.0.id',
        expected: 'string',
        received: 'number',
        action: 'coerced',
      },
      {
        operation: 'branches.list',
        path: 'branches.1.name',
        expected: 'string',
        received: 'undefined',
        action: 'omitted',
      },
      {
        operation: 'branches.list',
        path: 'branches.2',
        expected: 'object',
        received: 'number',
        action: 'omitted',
      },
      {
        operation: 'branches.list',
        path: 'branches.4.name',
        expected: 'string',
        received: 'number',
        action: 'coerced',
      },
    ]);
  });
});
