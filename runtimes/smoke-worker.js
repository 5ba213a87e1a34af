// Entry of the runtime smoke on workerd (bundled by esbuild into one module worker, no nodejs_compat).
// The mock's URL and credentials come as bindings; each request runs the smoke and answers its result.
import { runSmoke } from './smoke.js';

export default {
  async fetch(_request, env) {
    try {
      const passed = await runSmoke({
        baseUrl: env.SMOKE_BASE_URL,
        apiKey: env.SMOKE_API_KEY,
        sellerId: env.SMOKE_SELLER_ID,
        runtime: 'workerd',
      });
      return Response.json({ ok: true, passed });
    } catch (error) {
      return Response.json({ ok: false, error: error instanceof Error ? error.stack : String(error) });
    }
  },
};
