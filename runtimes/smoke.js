// The runtime smoke (npm run test:runtimes): one script, run unchanged on Node 22, Node 24, Bun and
// Deno, and bundled by esbuild for workerd and edge-runtime. It talks to the mock service over real HTTP
// (startMockHttpServer, started by the driver on 127.0.0.1) and throws on the first check that fails.
import { DeliveryClient, kwd, NotFoundError } from 'delivery-task-sdk';
import { createWebhookHandler } from 'delivery-task-sdk/webhooks';

/** Largest wait for the webhook handler's onEvent after its 200, ms. */
const EVENT_WAIT_MS = 5_000;

function check(condition, message) {
  if (!condition) throw new Error(`check failed: ${message}`);
}

/**
 * Runs every check against the mock at `baseUrl` (a fresh mock: no task before the first create).
 * @param {{ baseUrl: string, apiKey: string, sellerId: string, runtime: string }} target
 * @returns {Promise<string[]>} the names of the checks passed, in order
 */
export async function runSmoke({ baseUrl, apiKey, sellerId, runtime }) {
  const passed = [];

  // The browser guard does not fire: the client constructs without dangerouslyAllowBrowser.
  const client = new DeliveryClient({ baseUrl, apiKey, sellerId, maxRetries: 0 });
  passed.push('browser guard not firing');

  const orderPrefix = `RT-${runtime}-${Date.now().toString(36)}`;
  const created = [];
  for (let i = 1; i <= 3; i += 1) {
    const task = await client.tasks.create({
      orderNumber: `${orderPrefix}-${i}`,
      customerName: 'Runtime Smoke',
      totalAmount: kwd.normalize(12.5),
      deliveryLocation: {
        latitude: 29.3339,
        longitude: 48.0761,
        fullAddress: ['Block 10, Street 5', 'Salmiya'],
      },
    });
    check(typeof task.id === 'string' && task.id.length > 0, `create ${i} returned a task id`);
    check(task.status === 'pending', `create ${i} returned status pending, got ${task.status}`);
    created.push(task);
  }
  passed.push('create');

  const [first] = created;
  const retrieved = await client.tasks.retrieve(first.id);
  check(retrieved.id === first.id, 'retrieve returned the created task');
  check(
    retrieved.orderNumber === `${orderPrefix}-1`,
    `retrieve kept the order number, got ${retrieved.orderNumber}`,
  );
  passed.push('retrieve');

  const listed = [];
  for await (const task of client.tasks.list({ limit: 2 })) listed.push(task.id);
  check(listed.length === 3, `for await listed 3 tasks over 2 pages, got ${listed.length}`);
  for (const task of created) check(listed.includes(task.id), `for await listed ${task.id}`);
  passed.push('for await list');

  let notFound;
  try {
    await client.tasks.retrieve('0000000000000000deadbeef');
  } catch (error) {
    notFound = error;
  }
  check(notFound instanceof NotFoundError, `a missing task throws NotFoundError, got ${String(notFound)}`);
  check(notFound.status === 404, `NotFoundError.status is 404, got ${notFound.status}`);
  passed.push('typed 404');

  check(kwd.add('0.1', 0.2) === '0.300', `kwd.add('0.1', 0.2) is '0.300', got ${kwd.add('0.1', 0.2)}`);
  passed.push('kwd');

  let eventSeen;
  const eventArrived = new Promise((resolve) => {
    eventSeen = resolve;
  });
  const handler = createWebhookHandler({ onEvent: (event) => eventSeen(event) });
  const waits = [];
  const response = await handler.fetch(
    new Request('http://receiver.test/webhooks/delivery', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ _id: first.id, status: 'requested', orderNumber: first.orderNumber }),
    }),
    { waitUntil: (promise) => waits.push(promise) },
  );
  check(response.status === 200, `the webhook .fetch adapter answers 200, got ${response.status}`);
  let timer;
  const event = await Promise.race([
    eventArrived,
    new Promise((resolve) => {
      timer = setTimeout(() => resolve(undefined), EVENT_WAIT_MS);
    }),
  ]);
  clearTimeout(timer);
  check(event !== undefined, `onEvent called within ${EVENT_WAIT_MS} ms`);
  check(
    event.taskId === first.id && event.status === 'requested',
    'onEvent got the posted task id and status',
  );
  await Promise.all(waits);
  passed.push('webhook .fetch');

  return passed;
}
