// Optional OpenTelemetry tracing: with OTEL_EXPORTER_OTLP_ENDPOINT set, every request is a
// span (named by its route template, carrying the request id) and every SQL statement a
// span inside it, exported over OTLP/HTTP. Without it nothing is loaded and the
// @opentelemetry/api calls below are no-ops.
//
// Spans are made here rather than by auto-instrumentation: that patches modules as they
// are required, which misses modules an ES module imports, and would trace far more than
// an operator needs (every socket, every DNS lookup).
import type { FastifyInstance } from 'fastify';
import { context, trace, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { VERSION } from './startup.js';

const tracer = () => trace.getTracer('records-service', VERSION);

/** Whether tracing was started in this process: without it SQL is never wrapped. */
export let tracingOn = false;

/** Starts exporting spans to `endpoint` (OTLP/HTTP); returns what flushes and stops it. */
export async function startTracing(endpoint: string): Promise<{ shutdown(): Promise<void> }> {
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const url = `${endpoint.replace(/\/+$/, '')}/v1/traces`;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      'service.name': process.env.OTEL_SERVICE_NAME || 'records-service',
      'service.version': VERSION,
      'process.pid': process.pid,
    }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  });
  provider.register();
  tracingOn = true;
  return { shutdown: () => provider.shutdown() };
}

/** Runs a SQL statement inside a span of its own (a child of the request's span). */
export function traceQuery<T>(system: 'postgresql' | 'pglite', text: string, run: () => Promise<T>): Promise<T> {
  const parent = trace.getSpan(context.active());
  // Outside a request (jobs, migrations) statements are not traced: nothing to hang them on.
  if (!parent) return run();
  const span = tracer().startSpan(text.trim().split(/\s+/, 1)[0]!.toUpperCase(), {
    kind: SpanKind.CLIENT,
    attributes: { 'db.system': system === 'pglite' ? 'postgresql' : system, 'db.statement': text.slice(0, 2000) },
  });
  return run().then(
    (value) => {
      span.end();
      return value;
    },
    (err: Error) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
      span.end();
      throw err;
    },
  );
}

declare module 'fastify' {
  interface FastifyRequest {
    span: Span | null;
  }
}

/** Makes each request a span; its handler runs in the span's context, so SQL spans nest in it. */
export function installRequestSpans(app: FastifyInstance): void {
  app.decorateRequest('span', null);
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const span = tracer().startSpan(`${request.method} ${route}`, {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': request.method,
        'http.route': route,
        'url.path': request.url.split('?')[0],
        'records.request_id': request.id,
      },
    });
    request.span = span;
    context.with(trace.setSpan(context.active(), span), done);
  });
  app.addHook('onResponse', async (request, reply) => {
    const span = request.span;
    if (!span) return;
    span.setAttribute('http.response.status_code', reply.statusCode);
    if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
}

/** A pg `query` call traced: the promise form and the callback form (the pool uses it). */
export function tracePgQuery(args: unknown[], call: (args: unknown[]) => unknown): unknown {
  const config = args[0] as string | { text?: string } | undefined;
  const text = typeof config === 'string' ? config : config?.text;
  if (!tracingOn || typeof text !== 'string' || !trace.getSpan(context.active())) return call(args);
  const last = args.length - 1;
  if (typeof args[last] === 'function') {
    const callback = args[last] as (err: Error | null, ...rest: unknown[]) => void;
    let finish!: (err: Error | null) => void;
    void traceQuery('postgresql', text, () => new Promise<void>((resolve, reject) => {
      finish = (err) => (err ? reject(err) : resolve());
    })).catch(() => {});
    return call([...args.slice(0, last), (err: Error | null, ...rest: unknown[]) => {
      finish(err);
      callback(err, ...rest);
    }]);
  }
  const result = call(args);
  if (result && typeof (result as Promise<unknown>).then === 'function') return traceQuery('postgresql', text, () => result as Promise<unknown>);
  return result;
}
