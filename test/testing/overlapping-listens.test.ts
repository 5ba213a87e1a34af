/**
 * `mock.listen()` where the mock intercepts `fetch` itself (Node.js before 22.12, docs/testing.md "Resets,
 * remembered orders and the webhook URL"): two interceptions at once, closed in either order, leave no
 * closed mock answering and put back the `fetch` of before both.
 */
import { afterEach, expect, it } from 'vitest';
import { interceptFetch } from '../../src/testing/fetch-interception.js';
import { createMockDeliveryService } from '../../src/testing.js';

const original = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = original;
});

/** The two mocks' interceptions, the first beneath the second; the first answers its branches with 503. */
function twoInterceptions() {
  const first = createMockDeliveryService({ baseUrl: 'https://first.test' });
  const second = createMockDeliveryService({ baseUrl: 'https://second.test' });
  first.inject({ operation: 'branches.list', kind: 'status', status: 503, times: Number.POSITIVE_INFINITY });
  const firstInterception = interceptFetch(first.handlers, 'bypass');
  const secondInterception = interceptFetch(second.handlers, 'bypass');
  const branches = () =>
    fetch('https://first.test/tasks/branches', {
      headers: { authorization: `Bearer ${first.apiKey}`, 'x-seller-id': first.sellerId },
    });
  return { first, firstInterception, secondInterception, branches };
}

it('stops a mock answering once closed beneath another, and after the other closes', async () => {
  globalThis.fetch = async () => new Response('the network', { status: 299 });
  const before = globalThis.fetch;
  const { first, firstInterception, secondInterception, branches } = twoInterceptions();
  expect((await branches()).status).toBe(503);
  firstInterception.close();
  expect((await branches()).status).toBe(299);
  secondInterception.close();
  expect(globalThis.fetch).toBe(before);
  expect((await branches()).status).toBe(299);
  expect(first.requests).toHaveLength(1);
});

it('puts the fetch of before back when closed last first', async () => {
  globalThis.fetch = async () => new Response('the network', { status: 299 });
  const before = globalThis.fetch;
  const { firstInterception, secondInterception, branches } = twoInterceptions();
  secondInterception.close();
  expect((await branches()).status).toBe(503);
  firstInterception.close();
  expect(globalThis.fetch).toBe(before);
  expect((await branches()).status).toBe(299);
});
