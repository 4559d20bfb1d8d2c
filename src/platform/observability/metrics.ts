import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry, type Metric } from 'prom-client';
import { AppError } from '../../foundation/errors/app-error';

export interface Metrics {
  readonly registry: Registry;
  /** Counts and times one answered request (`started`: process.hrtime.bigint() when it arrived). */
  observe(method: string, route: string, status: number, started: bigint): void;
  /** GET /metrics in the Prometheus text format; wants the token when one is configured. */
  readonly handler: RequestHandler;
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const expected = Buffer.from(`Bearer ${token}`);
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A registry per service (not prom-client's global one), so several services can share a process. */
export function createMetrics(options: { token?: string; extra?: readonly Metric[] } = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const metric of options.extra ?? []) registry.registerMetric(metric);
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request to the end of its response',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  // One label object per label set, made once.
  const labelSets = new Map<string, { method: string; route: string; status: string }>();
  const observe = (method: string, route: string, status: number, started: bigint): void => {
    const key = `${method} ${route} ${status}`;
    let labels = labelSets.get(key);
    if (labels === undefined) {
      labels = { method, route, status: String(status) };
      labelSets.set(key, labels);
    }
    requests.inc(labels);
    duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
  };

  const handler: RequestHandler = async (req, res) => {
    res.locals.route = '/metrics';
    if (options.token && !tokenMatches(req.headers.authorization, options.token)) {
      throw AppError.unauthorized('GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>"');
    }
    res.setHeader('Content-Type', registry.contentType);
    res.send(await registry.metrics());
  };

  return { registry, observe, handler };
}
