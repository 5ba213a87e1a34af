/**
 * What tracing costs per call: `tasks.retrieve` on a loopback node:http server (real sockets) with no
 * tracer provider registered (the SDK imports nothing from `@opentelemetry/api`, so this is also the
 * cost when the package is not installed) and with a `BasicTracerProvider` registered whose exporter
 * drops the spans (the SDK's span work plus the OpenTelemetry SDK's, without export I/O). Run with
 * `npx tsx bench/tracing.ts`.
 * @module
 */
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { DeliveryClient } from '../src/index.node.js';
import { SpanKind, startSpan } from '../src/internal/tracing.js';
import { interleave, spread } from './support/stats.js';
import { serveTask } from './support/task-server.js';

const TASK_ID = '6b023c326d6f636b00000001';

/** Per-call time in µs with and without a registered provider: medians over interleaved rounds. */
export async function measureTracing(
  rounds = 5,
  calls = 2000,
): Promise<{ none: number[]; registered: number[] }> {
  const server = await serveTask();
  const base = server.url;
  const client = new DeliveryClient({ apiKey: 'bench-key', sellerId: 'bench-seller', baseUrl: base });
  let exported = 0;
  const dropping: SpanExporter = {
    export(spans, done) {
      exported += spans.length;
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(dropping)] });
  const time = async () => {
    const started = performance.now();
    for (let index = 0; index < calls; index++) await client.tasks.retrieve(TASK_ID);
    return ((performance.now() - started) * 1000) / calls;
  };
  const variants = {
    none: () => {
      trace.disable();
      return time();
    },
    registered: () => {
      trace.setGlobalTracerProvider(provider);
      return time();
    },
  };
  for (const warm of Object.values(variants)) await warm();
  try {
    const figures = await interleave(rounds, variants);
    if (exported < rounds * calls) throw new Error(`expected spans to be exported, got ${exported}`);
    return figures;
  } finally {
    trace.disable();
    await provider.shutdown();
    await server.close();
  }
}

/** ns per `startSpan` with no provider registered: the whole cost tracing adds to a call then. */
export function measureNoProviderCheck(times = 5_000_000): number {
  trace.disable();
  let started = 0;
  const begin = performance.now();
  for (let index = 0; index < times; index++)
    if (startSpan('tasks.retrieve', SpanKind.CLIENT, () => ({})) !== undefined) started++;
  const ns = ((performance.now() - begin) * 1e6) / times;
  if (started !== 0) throw new Error('a span was started with no provider registered');
  return ns;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`startSpan with no provider registered: ${measureNoProviderCheck().toFixed(1)} ns per call`);
  const figures = await measureTracing();
  console.log('tasks.retrieve per call on loopback (µs, median (min–max) of interleaved rounds):');
  console.log(`  no tracer provider registered  ${spread(figures.none, 1)}`);
  console.log(`  BasicTracerProvider registered ${spread(figures.registered, 1)}`);
}
