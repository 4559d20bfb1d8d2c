import type { TracingRuntime } from '../platform/observability/tracing';
import type { Exchange } from './exchange';

/**
 * Starts a request's SERVER span when tracing is on (D27): it continues the request's `traceparent`;
 * its scope travels with the exchange (the request's context, its unit-of-work scope, its logger), and
 * the finishing steps end it with the status and route (`exchange.trace`).
 */
export function startRequestSpan(runtime: TracingRuntime, exchange: Exchange): void {
  const { req } = exchange;
  exchange.trace = runtime.request(req.headers, { method: req.method ?? 'GET', target: req.url ?? '/', clientAddress: exchange.ip, requestId: exchange.requestId });
}
