import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';

/*
 * The tracing runtime as the instrumented places use it (through tracing.ts) and as the SDK
 * (tracing-sdk.ts) implements it (D27). Its own file so that the SDK need not import tracing.ts,
 * which loads the SDK: no import cycle.
 */

export interface TracingRuntime {
  /** The SERVER span of one request, continuing its `traceparent` (ended by RequestSpan.end). */
  request(headers: IncomingHttpHeaders, start: RequestStart): RequestSpan;
  /** A span for one GraphQL operation (`query events`) below `scope`, its parent for what `run` does until its result settles. */
  operation<R>(scope: TraceScope, type: string, name: string | undefined, run: () => R): R;
  /** A CLIENT span for one SQL statement on the pool `pool` below `scope` (the statement's text, never its values). */
  statement(scope: TraceScope, pool: string, database: string | undefined, text: string): StatementSpan;
  /**
   * A CLIENT span for one webhook attempt: a child of the span that wrote the message (`attempt.parent`,
   * its traceparent), else the root of a trace of its own.
   */
  webhookAttempt(attempt: WebhookAttemptStart): WebhookAttemptSpan;
  /** The W3C traceparent of `scope`'s current span. */
  traceparent(scope: TraceScope): string;
  /** Where the SDK's own complaints (an export that failed) go: warnings of the service's log. */
  attachLogger(logger: Logger): void;
  /** Exports what is still buffered and stops. */
  shutdown(): Promise<void>;
}

/**
 * Where one request (or webhook attempt) is in its trace: the span new spans are children of. Passed
 * explicitly (the exchange, the request context, the unit-of-work scope), never through an
 * AsyncLocalStorage: on Node 20 that alone costs more than the spans (promise hooks on every promise).
 */
export interface TraceScope {
  /** The OpenTelemetry context of the current parent span (opaque here). */
  parent: unknown;
  /** `trace_id` and `span_id` of the request's span, for its log lines. */
  readonly logFields: { readonly trace_id: string; readonly span_id: string };
}

export interface RequestStart {
  readonly method: string;
  readonly target: string;
  readonly clientAddress: string | undefined;
  readonly requestId: string;
}

export interface RequestSpan {
  readonly scope: TraceScope;
  /** Ends the span with the answer's status and the route that answered (the span's name). */
  end(status: number, route: string): void;
}

export interface StatementSpan {
  end(error?: unknown): void;
}

export interface WebhookAttemptStart {
  /** The traceparent of the change that wrote the message (stored with it), or null. */
  readonly parent: string | null;
  readonly url: string;
  readonly messageId: string;
  readonly attempt: number;
}

export interface WebhookAttemptSpan {
  readonly scope: TraceScope;
  /** The attempt's trace id (stored with the attempt). */
  readonly traceId: string;
  /** The W3C `traceparent` (and `tracestate`) headers that continue this attempt's trace at the receiver. */
  readonly headers: Readonly<Record<string, string>>;
  /** Ends the span with the attempt's outcome. */
  end(outcome: { statusCode: number | null; error: string | null }): void;
}
