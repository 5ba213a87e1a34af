import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { type Branch, DeliveryClient } from '../../src/index.js';
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
