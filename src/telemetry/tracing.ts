// OpenTelemetry in every process: one trace per run. The run's root span is made where the run
// is created (the API); its context travels in every job's `trace` carrier (W3C traceparent),
// so model turns and tool calls in any worker process join the same trace.
import { context, propagation, trace, SpanKind, SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';

export { SpanKind };

let sdk: NodeSDK | null = null;

/** Starts the SDK when an OTLP endpoint is configured; a no-op otherwise. */
export function startTracing(input: { serviceName: string; endpoint: string | undefined; exportDelayMs?: number }): { shutdown(): Promise<void> } {
  if (!input.endpoint || sdk) return { shutdown: async () => undefined };
  const exporter = new OTLPTraceExporter({ url: `${input.endpoint.replace(/\/$/, '')}/v1/traces` });
  sdk = new NodeSDK({
    resource: resourceFromAttributes({ 'service.name': input.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: input.exportDelayMs ?? 1000 })],
    instrumentations: [],
  });
  sdk.start();
  const running = sdk;
  return {
    async shutdown() {
      await running.shutdown().catch(() => undefined);
      sdk = null;
    },
  };
}

export const tracer = () => trace.getTracer('buildfleet');

/** The active context as a W3C carrier, to put in a job. */
export function activeTraceCarrier(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

export function traceIdOfCarrier(carrier: Record<string, string>): string | null {
  const parts = carrier.traceparent?.split('-');
  return parts && parts.length >= 3 && parts[1] ? parts[1] : null;
}

/** Runs fn in a span whose parent comes from a carrier (or the active context). */
export async function inSpan<T>(
  name: string,
  options: { parent?: Record<string, string>; kind?: SpanKind; attributes?: Attributes },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parentContext = options.parent ? propagation.extract(context.active(), options.parent) : context.active();
  return tracer().startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) },
    parentContext,
    async (span) => {
      try {
        return await fn(span);
      } catch (error) {
        span.recordException(error instanceof Error ? error : new Error(String(error)));
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Adds an event to the active span, if there is one. */
export function addSpanEvent(name: string, attributes: Attributes | (() => Attributes)): void {
  const span = trace.getActiveSpan();
  // Built only for a span that records: with tracing off (the no-op tracer) nothing is computed.
  if (span?.isRecording()) span.addEvent(name, typeof attributes === 'function' ? attributes() : attributes);
}
