// Optional OpenTelemetry tracing: with OTEL_EXPORTER_OTLP_ENDPOINT set, every request is a
// span (named by its route template, carrying the request id) and every SQL statement a
// span inside it, exported over OTLP/HTTP. A job's run (jobs/registry.ts) is a trace of its
// own in the same way. Without it nothing is loaded and the @opentelemetry/api calls below
// are no-ops.
//
// A trace ends with its request: a statement whose request span has ended (work a request
// left behind) is a trace of its own rather than a late part of the request's; statements
// outside any request or job (start-up, migrations, a job's `due` check) are not traced.
//
// Spans are made here rather than by auto-instrumentation: that patches modules as they
// are required, which misses modules an ES module imports, and would trace far more than
// an operator needs (every socket, every DNS lookup).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ROOT_CONTEXT, context, trace, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
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

/** Whether the SDK's span has ended (the API's Span does not say; the SDK's has `ended`). */
function ended(span: Span): boolean {
  return (span as { ended?: boolean }).ended === true;
}

/** Ends `span` with the outcome of `promise`, and passes the outcome on. */
function endWith<T>(span: Span, promise: Promise<T>): Promise<T> {
  return promise.then(
    (value) => {
      span.end();
      return value;
    },
    (err: Error) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err?.message });
      span.end();
      throw err;
    },
  );
}

/** Runs a SQL statement inside a span of its own (a child of the request's or the job's span). */
export function traceQuery<T>(system: 'postgresql' | 'pglite', text: string, run: () => Promise<T>): Promise<T> {
  const parent = trace.getSpan(context.active());
  // Outside a request or a job (start-up, migrations, a job's due check) statements are not traced.
  if (!parent || (!parent.isRecording() && !ended(parent))) return run();
  const span = tracer().startSpan(text.trim().split(/\s+/, 1)[0]!.toUpperCase(), {
    kind: SpanKind.CLIENT,
    // Past its request's end, a statement starts a trace of its own.
    root: ended(parent),
    attributes: { 'db.system': system === 'pglite' ? 'postgresql' : system, 'db.statement': text.slice(0, 2000) },
  });
  return endWith(span, run());
}

/** Runs one run of a background job as a trace of its own: a root span, its statements inside. */
export function traceJob<T>(name: string, run: () => Promise<T>): Promise<T> {
  if (!tracingOn) return run();
  const span = tracer().startSpan(`job ${name}`, { root: true, kind: SpanKind.INTERNAL, attributes: { 'records.job': name } });
  return endWith(span, context.with(trace.setSpan(ROOT_CONTEXT, span), run));
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
  const finish = (request: FastifyRequest, status: number) => {
    const span = request.span;
    if (!span || ended(span)) return;
    span.setAttribute('http.response.status_code', status);
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  app.addHook('onResponse', async (request, reply) => finish(request, reply.statusCode));
  // A hijacked reply (a live stream) gets no onResponse: its span ends when its connection does.
  app.addHook('onRequest', async (request, reply) => {
    reply.raw.once('close', () => finish(request, reply.raw.statusCode));
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
