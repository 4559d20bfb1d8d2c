import type { TraceScope, TracingRuntime } from './tracing-runtime';

/**
 * Tracing (D27): OpenTelemetry spans exported over OTLP/HTTP, configured by the standard `OTEL_*`
 * variables. This file is what the instrumented places see: `tracing.runtime` is undefined while
 * tracing is off (no OTLP endpoint set, OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER=none), and each place
 * checks it once and does nothing else; the SDK (tracing-sdk.ts) is required only when tracing is on.
 * Spans are made at the few places the service owns (the request pipeline, the GraphQL executor, each
 * pool's statement runner, the webhook sender), not by the stock monkey-patching instrumentations.
 * The runtime's interface is in tracing-runtime.ts, which both this file and the SDK import.
 */
export type {
  RequestSpan,
  RequestStart,
  StatementSpan,
  TraceScope,
  TracingRuntime,
  WebhookAttemptSpan,
  WebhookAttemptStart,
} from './tracing-runtime';

/** The process's tracing: `runtime` is set by startTracing when tracing is on, and stays undefined otherwise. */
export const tracing: { runtime: TracingRuntime | undefined } = { runtime: undefined };

type Env = Readonly<Record<string, string | undefined>>;

/** Whether the environment asks for traces: an OTLP endpoint is set, and neither the SDK nor the exporter is turned off. */
export function tracingWanted(env: Env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporter = (env.OTEL_TRACES_EXPORTER ?? 'otlp').trim().toLowerCase();
  if (exporter === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

/**
 * Starts tracing when the environment asks for it (see tracingWanted) and returns its runtime, or
 * undefined (nothing loaded). Throws a one-line message for a setting it cannot honour.
 */
export function startTracing(env: Env = process.env): TracingRuntime | undefined {
  if (!tracingWanted(env)) return undefined;
  // Loaded only when tracing is on: a process without it never loads the SDK.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startTracingSdk } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  tracing.runtime = startTracingSdk(env);
  return tracing.runtime;
}

const bound = new WeakMap<object, TraceScope>();

/** Ties `scope` to an object that travels where the scope cannot be passed (a request's entity manager, a transaction's). */
export function bindTrace(owner: object, scope: TraceScope | undefined): void {
  if (scope && tracing.runtime) bound.set(owner, scope);
}

/** The scope tied to `owner` (bindTrace), or undefined (always while tracing is off). */
export function boundTrace(owner: object): TraceScope | undefined {
  return tracing.runtime ? bound.get(owner) : undefined;
}

/**
 * A statement's binding that stands for the traceparent of the request the statement runs for, filled
 * in by the statement runner that knows the request (fillTraceparent); a statement that never meets one
 * stores NULL (`nullif`, see outboxCtes). Only bound while tracing is on.
 */
export const TRACEPARENT_PLACEHOLDER = '{traceparent}';

/** `values` with the placeholder replaced by `scope`'s traceparent (or null); `values` itself when it has none. */
export function fillTraceparent(values: readonly unknown[], scope: TraceScope | undefined): readonly unknown[] {
  const at = values.indexOf(TRACEPARENT_PLACEHOLDER);
  if (at === -1) return values;
  const filled = [...values];
  filled[at] = traceparentOf(scope);
  return filled;
}

/** The traceparent of `scope` when tracing is on, else null: what an outbox message stores (D27). */
export function traceparentOf(scope: TraceScope | undefined): string | null {
  const runtime = tracing.runtime;
  return runtime && scope ? runtime.traceparent(scope) : null;
}

/** Stops tracing (flushing what is buffered); nothing when it is off. */
export async function stopTracing(): Promise<void> {
  const runtime = tracing.runtime;
  if (!runtime) return;
  tracing.runtime = undefined;
  await runtime.shutdown();
}
