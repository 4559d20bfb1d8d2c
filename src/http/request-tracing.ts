import type { TracingRuntime } from '../platform/observability/tracing';
import type { Exchange } from './pipeline';

/**
 * Runs a request's steps inside its SERVER span when tracing is on (D27): the span continues the
 * request's `traceparent`, is active for every step (the GraphQL operation and SQL spans below it find
 * it), and is ended by the finishing steps with the status and route (`exchange.trace`).
 */
export function runTraced(runtime: TracingRuntime, exchange: Exchange, run: (exchange: Exchange) => Promise<void>): Promise<void> {
  const { req } = exchange;
  const start = { method: req.method ?? 'GET', target: req.url ?? '/', clientAddress: exchange.ip, requestId: exchange.requestId };
  return runtime.request(req.headers, start, (span) => {
    exchange.trace = span;
    return run(exchange);
  });
}
