// Runs the bundled smoke (SMOKE_BUNDLE, one ES module) in workerd through miniflare, without
// nodejs_compat, the mock's URL and credentials given as bindings. The worker calls out to the mock on
// 127.0.0.1 through workerd's own network stack. Prints "runtime workerd <version>: ok" or the failure.
import { readFile } from 'node:fs/promises';
import { Miniflare } from 'miniflare';

const { version } = JSON.parse(
  await readFile(new URL('./node_modules/workerd/package.json', import.meta.url), 'utf8'),
);
const line = `runtime workerd ${version}`;

const miniflare = new Miniflare({
  modules: true,
  script: await readFile(process.env.SMOKE_BUNDLE, 'utf8'),
  compatibilityDate: '2026-04-01',
  compatibilityFlags: [],
  bindings: {
    SMOKE_BASE_URL: process.env.SMOKE_BASE_URL,
    SMOKE_API_KEY: process.env.SMOKE_API_KEY,
    SMOKE_SELLER_ID: process.env.SMOKE_SELLER_ID,
  },
});
let failed = true;
try {
  const response = await miniflare.dispatchFetch('http://worker.test/smoke');
  const result = await response.json();
  if (result.ok) {
    console.log(`${line}: ok (${result.passed.join(', ')})`);
    failed = false;
  } else {
    console.log(`${line}: FAILED ${result.error}`);
  }
} catch (error) {
  console.log(`${line}: FAILED ${error instanceof Error ? error.stack : String(error)}`);
} finally {
  await miniflare.dispose();
}
process.exit(failed ? 1 : 0);
