// Runs the bundled smoke (SMOKE_BUNDLE, one script) in edge-runtime's VM (the Vercel Edge runtime's
// globals, no Node APIs), calling the mock on 127.0.0.1 with the VM's fetch. Prints
// "runtime edge-runtime <version>: ok" or the failure.
import { readFile } from 'node:fs/promises';
import { EdgeRuntime } from 'edge-runtime';

const { version } = JSON.parse(
  await readFile(new URL('./node_modules/edge-runtime/package.json', import.meta.url), 'utf8'),
);
const line = `runtime edge-runtime ${version}`;

let failed = true;
try {
  const runtime = new EdgeRuntime({ initialCode: await readFile(process.env.SMOKE_BUNDLE, 'utf8') });
  if (runtime.evaluate('typeof process') !== 'undefined')
    throw new Error('the edge VM exposes process: not an edge runtime');
  const target = {
    baseUrl: process.env.SMOKE_BASE_URL,
    apiKey: process.env.SMOKE_API_KEY,
    sellerId: process.env.SMOKE_SELLER_ID,
    runtime: 'edge-runtime',
  };
  const passed = await runtime.evaluate(`runSmoke(${JSON.stringify(target)})`);
  console.log(`${line}: ok (${passed.join(', ')})`);
  failed = false;
} catch (error) {
  console.log(`${line}: FAILED ${error instanceof Error ? error.stack : String(error)}`);
}
process.exit(failed ? 1 : 0);
