import type { ObservabilityConfig } from '../config.js';

/** One server span per request: started when the request arrives, ended with what the request turned out to be. */
export interface RequestSpan {
  /** The W3C trace id (32 hex digits), for the request's log line. */
  readonly traceId: string;
  end(outcome: { name: string; status: number; attributes: Record<string, string | number> }): void;
}

export interface Tracing {
  start(request: Request): RequestSpan;
  /** Sends the spans still buffered and stops the exporter. */
  shutdown(): Promise<void>;
}

/**
 * OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set: spans go by OTLP/HTTP (JSON) to
 * `<endpoint>/v1/traces`, batched. The SDK is imported only then, so a gateway without tracing
 * loads none of it. A request's `traceparent` header (W3C) makes its span a child of the caller's.
 * No global provider is registered: these spans are the gateway's own, made here and nowhere else.
 */
export async function createTracing(
  config: Pick<ObservabilityConfig, 'otlpEndpoint' | 'serviceName'>,
  version: string,
): Promise<Tracing | undefined> {
  if (!config.otlpEndpoint) return undefined;
  const [
    api,
    { BasicTracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    { resourceFromAttributes },
    { W3CTraceContextPropagator },
  ] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/core'),
  ]);
  const exporter = new OTLPTraceExporter({ url: `${config.otlpEndpoint.replace(/\/+$/, '')}/v1/traces` });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': version }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1_000 })],
  });
  const tracer = provider.getTracer('market-data-gateway', version);
  const propagator = new W3CTraceContextPropagator();
  const headerGetter: import('@opentelemetry/api').TextMapGetter<Headers> = {
    get: (headers, key) => headers.get(key) ?? undefined,
    keys: (headers) => [...headers.keys()],
  };

  return {
    start(request) {
      const parent = propagator.extract(api.ROOT_CONTEXT, request.headers, headerGetter);
      const span = tracer.startSpan(
        request.method,
        { kind: api.SpanKind.SERVER, attributes: { 'http.request.method': request.method } },
        parent,
      );
      return {
        traceId: span.spanContext().traceId,
        end({ name, status, attributes }) {
          span.updateName(name);
          span.setAttributes({ ...attributes, 'http.response.status_code': status });
          if (status >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
    shutdown: () => provider.shutdown(),
  };
}
