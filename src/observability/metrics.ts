import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry, type Metric } from 'prom-client';
import { AppError } from '../errors/app-error';
import { routeLabelOf } from '../http/route-label';

export interface Metrics {
  readonly registry: Registry;
  /** Counts and times every request once its response is finished. */
  readonly record: RequestHandler;
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

  const record: RequestHandler = (req, res, next) => {
    const stop = duration.startTimer();
    res.on('finish', () => {
      const labels = { method: req.method, route: routeLabelOf(res), status: String(res.statusCode) };
      requests.inc(labels);
      stop(labels);
    });
    next();
  };

  const handler: RequestHandler = async (req, res) => {
    res.locals.route = '/metrics';
    if (options.token && !tokenMatches(req.headers.authorization, options.token)) {
      throw AppError.unauthorized('GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>"');
    }
    res.setHeader('Content-Type', registry.contentType);
    res.send(await registry.metrics());
  };

  return { registry, record, handler };
}
