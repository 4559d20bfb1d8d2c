import type { IncomingHttpHeaders } from 'node:http';
import {
  defaultTextMapGetter,
  defaultTextMapSetter,
  diag,
  DiagLogLevel,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_DB_NAMESPACE,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_SERVICE_NAME,
  ATTR_URL_FULL,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import type { Logger } from 'pino';
import type { RequestSpan, RequestStart, StatementSpan, TraceScope, TracingRuntime, WebhookAttemptSpan, WebhookAttemptStart } from './tracing-runtime';

type Env = Readonly<Record<string, string | undefined>>;

/** The protocols of OTLP over HTTP (the specification's default is http/protobuf); gRPC is not offered. */
function exporterFor(env: Env): SpanExporter {
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() || env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() || 'http/protobuf').toLowerCase();
  /* eslint-disable @typescript-eslint/no-require-imports -- only the exporter of the chosen protocol is loaded */
  if (protocol === 'http/protobuf') {
    // What @opentelemetry/exporter-trace-otlp-proto's OTLPTraceExporter is (the stock HTTP delegate, its
    // OTEL_EXPORTER_OTLP_* settings, the decoding of the answer), assembled from the packages it is
    // made of, which the service already has: its serializer is otlp-transformer's ProtobufTraceSerializer.
    const base = require('@opentelemetry/otlp-exporter-base') as typeof import('@opentelemetry/otlp-exporter-base');
    const http = require('@opentelemetry/otlp-exporter-base/node-http') as typeof import('@opentelemetry/otlp-exporter-base/node-http');
    const transformer = require('@opentelemetry/otlp-transformer') as typeof import('@opentelemetry/otlp-transformer');
    const options = http.convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' });
    return new base.OTLPExporterBase(
      http.createOtlpHttpExportDelegate(options, transformer.ProtobufTraceSerializer, 'otlp_http_span_exporter', transformer.TraceExporterMetricsHelper, undefined),
    );
  }
  if (protocol === 'http/json') {
    return new (require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  }
  /* eslint-enable @typescript-eslint/no-require-imports */
  throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (OTLP over HTTP), not "${protocol}"`);
}

function checkExporter(env: Env): void {
  const exporter = (env.OTEL_TRACES_EXPORTER ?? 'otlp').trim().toLowerCase();
  if (exporter !== 'otlp' && exporter !== '') throw new Error(`OTEL_TRACES_EXPORTER must be otlp or none, not "${exporter}"`);
}

/** The statement's first keyword (SELECT, WITH, INSERT…): the span's name and db.operation.name, found once per text. */
const keywords = new Map<string, string>();
function keywordOf(text: string): string {
  let keyword = keywords.get(text);
  if (keyword === undefined) {
    keyword = (/^\s*([A-Za-z]+)/.exec(text)?.[1] ?? 'SQL').toUpperCase();
    if (keywords.size < 10_000) keywords.set(text, keyword);
  }
  return keyword;
}

/** What a failure is called on a span: its SQLSTATE or class, never its message (a driver's message may quote values). */
function errorTypeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code !== '') return code;
  return error instanceof Error ? error.name : 'error';
}

/** The URL of a webhook destination as a span shows it: without its query string (it may hold the receiver's token) or credentials. */
function destinationOf(url: string): { full: string; host: string; port: number } | undefined {
  try {
    const parsed = new URL(url);
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
    return { full: `${parsed.protocol}//${parsed.host}${parsed.pathname}`, host: parsed.hostname, port };
  } catch {
    return undefined;
  }
}

/** Statement texts as spans show them: whitespace runs made one space (the fixed statements are indented), found once per text. */
const compact = new Map<string, string>();
function compactOf(text: string): string {
  let shown = compact.get(text);
  if (shown === undefined) {
    shown = text.replace(/\s+/g, ' ').trim();
    if (compact.size < 10_000) compact.set(text, shown);
  }
  return shown;
}

/**
 * Starts the SDK: the resource (service.name `event-service` unless OTEL_SERVICE_NAME or
 * OTEL_RESOURCE_ATTRIBUTES say otherwise), the sampler (OTEL_TRACES_SAMPLER, _ARG), a batch span
 * processor (OTEL_BSP_*), the OTLP exporter (OTEL_EXPORTER_OTLP_* endpoint, headers, timeout,
 * compression, protocol) and W3C trace context. No context manager: parents are passed explicitly
 * (TraceScope), so no AsyncLocalStorage taxes every promise of the process.
 */
export function startTracingSdk(env: Env): TracingRuntime {
  checkExporter(env);
  const exporter = exporterFor(env);
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'event-service' }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  const tracer = provider.getTracer('event-service');
  const propagator = new W3CTraceContextPropagator();

  const ended = (span: Span, failure: string | undefined): void => {
    if (failure !== undefined) {
      span.setAttribute(ATTR_ERROR_TYPE, failure);
      span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
    }
    span.end();
  };
  const scopeOf = (parent: Context, span: Span): TraceScope => {
    const { traceId, spanId } = span.spanContext();
    return { parent: trace.setSpan(parent, span), logFields: { trace_id: traceId, span_id: spanId } };
  };

  return {
    request(headers: IncomingHttpHeaders, start: RequestStart): RequestSpan {
      const parent = headers.traceparent === undefined ? ROOT_CONTEXT : propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      const questionMark = start.target.indexOf('?');
      const attributes: Attributes = {
        [ATTR_HTTP_REQUEST_METHOD]: start.method,
        [ATTR_URL_PATH]: questionMark === -1 ? start.target : start.target.slice(0, questionMark),
        [ATTR_URL_SCHEME]: 'https',
        'event_service.request_id': start.requestId,
      };
      if (start.clientAddress !== undefined) attributes[ATTR_CLIENT_ADDRESS] = start.clientAddress;
      const agent = headers['user-agent'];
      if (agent !== undefined) attributes[ATTR_USER_AGENT_ORIGINAL] = agent;
      const span = tracer.startSpan(start.method, { kind: SpanKind.SERVER, attributes }, parent);
      return {
        scope: scopeOf(parent, span),
        end(status, route) {
          span.updateName(`${start.method} ${route}`);
          span.setAttribute(ATTR_HTTP_ROUTE, route);
          span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
          ended(span, status >= 500 ? String(status) : undefined);
        },
      };
    },

    operation<R>(scope: TraceScope, type: string, name: string | undefined, run: () => R): R {
      const attributes: Attributes = { 'graphql.operation.type': type };
      if (name !== undefined) attributes['graphql.operation.name'] = name;
      const outer = scope.parent as Context;
      const span = tracer.startSpan(name === undefined ? type : `${type} ${name}`, { kind: SpanKind.INTERNAL, attributes }, outer);
      // What the operation runs (its statements) is the operation's, until it settles.
      scope.parent = trace.setSpan(outer, span);
      const settle = (failure: string | undefined): void => {
        scope.parent = outer;
        ended(span, failure);
      };
      const settleResult = (result: unknown): void => {
        const errors = (result as { errors?: readonly unknown[] } | null)?.errors;
        settle(errors && errors.length > 0 ? 'graphql_error' : undefined);
      };
      let result: R;
      try {
        result = run();
      } catch (error) {
        settle(errorTypeOf(error));
        throw error;
      }
      if (result instanceof Promise) result.then(settleResult, (error: unknown) => settle(errorTypeOf(error)));
      else settleResult(result);
      return result;
    },

    statement(scope: TraceScope, pool: string, database: string | undefined, text: string): StatementSpan {
      const operation = keywordOf(text);
      const shown = compactOf(text);
      // The text once, as `db.statement` (the name most backends show; the conventions since 1.26 call it
      // db.query.text): the statements are long, and encoding them is most of an export's cost.
      const attributes: Attributes = {
        [ATTR_DB_SYSTEM_NAME]: 'postgresql',
        [ATTR_DB_OPERATION_NAME]: operation,
        'db.client.connection.pool.name': pool,
        'db.system': 'postgresql',
        'db.statement': shown,
      };
      if (database !== undefined) {
        attributes[ATTR_DB_NAMESPACE] = database;
        attributes['db.name'] = database;
      }
      const name = database === undefined ? operation : `${operation} ${database}`;
      const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, scope.parent as Context);
      return { end: (error?: unknown) => ended(span, error === undefined ? undefined : errorTypeOf(error)) };
    },

    webhookAttempt(attempt: WebhookAttemptStart): WebhookAttemptSpan {
      const destination = destinationOf(attempt.url);
      const attributes: Attributes = {
        [ATTR_HTTP_REQUEST_METHOD]: 'POST',
        'messaging.message.id': attempt.messageId,
        'http.request.resend_count': attempt.attempt - 1,
      };
      if (destination) {
        attributes[ATTR_URL_FULL] = destination.full;
        attributes[ATTR_SERVER_ADDRESS] = destination.host;
        attributes[ATTR_SERVER_PORT] = destination.port;
      }
      // In the trace of the change that wrote the message, when it was traced; else a trace of its own.
      const parent = attempt.parent ? propagator.extract(ROOT_CONTEXT, { traceparent: attempt.parent }, defaultTextMapGetter) : ROOT_CONTEXT;
      const span = tracer.startSpan('POST', { kind: SpanKind.CLIENT, attributes }, parent);
      const scope = scopeOf(parent, span);
      const headers: Record<string, string> = {};
      propagator.inject(scope.parent as Context, headers, defaultTextMapSetter);
      return {
        scope,
        traceId: span.spanContext().traceId,
        headers,
        end(outcome) {
          if (outcome.statusCode !== null) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, outcome.statusCode);
          // A failed attempt is named by its status, or by the kind of failure (timeout, refused, ECONNREFUSED…).
          if (outcome.error === null) ended(span, undefined);
          else ended(span, outcome.statusCode === null ? outcome.error.split(':')[0] : String(outcome.statusCode));
        },
      };
    },

    traceparent(scope: TraceScope): string {
      const carrier: Record<string, string> = {};
      propagator.inject(scope.parent as Context, carrier, defaultTextMapSetter);
      return carrier.traceparent;
    },

    attachLogger(logger: Logger): void {
      diag.setLogger(
        {
          error: (message) => logger.warn(`tracing: ${message}`),
          warn: (message) => logger.warn(`tracing: ${message}`),
          info: () => undefined,
          debug: () => undefined,
          verbose: () => undefined,
        },
        DiagLogLevel.WARN,
      );
    },

    shutdown: () => provider.shutdown(),
  };
}
