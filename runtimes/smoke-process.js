// Entry of the runtime smoke on Node, Bun and Deno (run by scripts/test-runtimes.ts). Reads the mock's
// URL and credentials from the environment, runs smoke.js, then checks the test kit's listen(): it
// intercepts on Node ≥ 22.12 and throws a clear error on Bun and Deno. Prints one line
// "runtime <name> <version>: ok" (or the failure) and exits 1 on a failure.
import { runSmoke } from './smoke.js';

const env = globalThis.Deno ? (name) => globalThis.Deno.env.get(name) : (name) => process.env[name];
const runtime = env('SMOKE_RUNTIME') ?? 'unknown';
const version = globalThis.Bun
  ? globalThis.Bun.version
  : globalThis.Deno
    ? globalThis.Deno.version.deno
    : process.versions.node;

/** listen() where msw cannot intercept: the error names the runtime and points to startMockHttpServer. */
async function checkListen() {
  const { createMockDeliveryService } = await import('delivery-task-sdk/testing');
  const mock = createMockDeliveryService();
  const expected = env('SMOKE_LISTEN_ERROR');
  if (expected) {
    let thrown;
    try {
      mock.listen();
    } catch (error) {
      thrown = error;
    } finally {
      mock.close();
    }
    const message = thrown instanceof Error ? thrown.message : String(thrown);
    if (!message.includes(expected) || !message.includes('startMockHttpServer')) {
      throw new Error(`listen() should throw naming ${expected} and startMockHttpServer, got: ${message}`);
    }
    return 'listen() throws naming the runtime';
  }
  // Where msw intercepts, listen() serves the mock at its own base URL without a socket.
  const { DeliveryClient } = await import('delivery-task-sdk');
  mock.listen();
  try {
    const client = new DeliveryClient({
      apiKey: mock.apiKey,
      sellerId: mock.sellerId,
      baseUrl: mock.baseUrl,
    });
    const { walletAmount } = await client.wallet.retrieveBalance();
    if (walletAmount !== 100)
      throw new Error(`listen(): balance through msw should be 100, got ${walletAmount}`);
  } finally {
    mock.close();
  }
  return 'listen() intercepts';
}

/** The SDK must come from the unpacked tarball, not from the repo's sources (tsconfig paths, workspaces). */
function checkResolution() {
  for (const specifier of ['delivery-task-sdk', 'delivery-task-sdk/testing']) {
    const resolved = import.meta.resolve(specifier);
    if (!resolved.includes('/runtimes/node_modules/delivery-task-sdk/dist/')) {
      throw new Error(`${specifier} resolves to ${resolved}, not to the unpacked tarball`);
    }
  }
}

try {
  checkResolution();
  const passed = await runSmoke({
    baseUrl: env('SMOKE_BASE_URL'),
    apiKey: env('SMOKE_API_KEY'),
    sellerId: env('SMOKE_SELLER_ID'),
    runtime,
  });
  passed.push(await checkListen());
  console.log(`runtime ${runtime} ${version}: ok (${passed.join(', ')})`);
  exit(0);
} catch (error) {
  console.log(
    `runtime ${runtime} ${version}: FAILED ${error instanceof Error ? error.stack : String(error)}`,
  );
  exit(1);
}

/**
 * Exits explicitly: on Deno 2.9.6 a process that has called createMockDeliveryService() does not end by
 * itself (something in the test kit keeps its event loop alive), which would cost the suite its timeout.
 */
function exit(code) {
  if (globalThis.Deno) globalThis.Deno.exit(code);
  process.exit(code);
}
