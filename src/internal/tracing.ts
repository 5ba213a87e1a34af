/**
 * OpenTelemetry tracing without importing `@opentelemetry/api`: the provider
 * `trace.setGlobalTracerProvider()`
 * registers is read from the registry every 1.x copy of the API shares (one property read per call).
 * @module
 */
import { VERSION } from '../core/version.js';

/** Attribute values the SDK sets (OpenTelemetry's primitive attribute values). */
export type SpanAttributes = Record<string, string | number | boolean>;

/** The part of OpenTelemetry's `Span` the SDK uses. */
export interface TraceSpan {
  setAttribute(key: string, value: string | number | boolean): unknown;
  addEvent(name: string, attributes?: SpanAttributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: { name: string; message: string; stack?: string }): void;
  end(): void;
}

interface Tracer {
  startSpan(name: string, options?: { kind?: number; attributes?: SpanAttributes }): TraceSpan;
}

interface TracerProvider {
  getTracer(name: string, version?: string): Tracer;
}

/** OpenTelemetry's `SpanKind` values. */
export const SpanKind = { CLIENT: 2, CONSUMER: 4 } as const;

/** OpenTelemetry's `SpanStatusCode.ERROR`. */
const STATUS_ERROR = 2;

const REGISTRY_KEY = Symbol.for('opentelemetry.js.api.1');

let cachedProvider: TracerProvider | undefined;
let cachedTracer: Tracer | undefined;

function currentTracer(): Tracer | undefined {
  const registry = (globalThis as { [REGISTRY_KEY]?: { version?: unknown; trace?: TracerProvider } })[
    REGISTRY_KEY
  ];
  const provider = registry?.trace;
  if (provider === undefined || typeof provider.getTracer !== 'function') return undefined;
  if (typeof registry?.version !== 'string' || !registry.version.startsWith('1.')) return undefined;
  if (provider !== cachedProvider) {
    cachedProvider = provider;
    cachedTracer = provider.getTracer('delivery-task-sdk', VERSION);
  }
  return cachedTracer;
}

/** Starts a span when a tracer provider is registered; a tracer that throws is ignored. */
export function startSpan(
  name: string,
  kind: number,
  attributes: () => SpanAttributes,
): TraceSpan | undefined {
  const tracer = currentTracer();
  if (tracer === undefined) return undefined;
  try {
    return tracer.startSpan(name, { kind, attributes: attributes() });
  } catch {
    return undefined;
  }
}

/** Marks `span` failed with `error` (whose message is already free of secrets) and ends nothing. */
export function recordFailure(span: TraceSpan, error: unknown): void {
  const failure =
    error instanceof Error
      ? {
          name: error.name,
          message: error.message,
          ...(error.stack === undefined ? {} : { stack: error.stack }),
        }
      : { name: 'Error', message: 'a non-error was thrown' };
  span.recordException(failure);
  span.setStatus({ code: STATUS_ERROR, message: failure.message });
}
