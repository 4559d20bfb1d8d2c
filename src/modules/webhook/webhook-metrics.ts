import type { MikroORM } from '@mikro-orm/postgresql';
import { Counter, Gauge, Histogram, type Metric } from 'prom-client';
import { executeOnOrm } from '../../platform/db/prepared-statements';
import { sqlStatements } from '../../platform/db/sql-statement';

const sql = sqlStatements(__filename);

const OLDEST_PENDING = sql.statement<Record<string, never>, { age: number | string | null }>(
  'oldestPendingAge',
  `select extract(epoch from now() - min(m.created_at)) as age from webhook_deliveries d
             join webhook_messages m on m.id = d.message_id join webhook_endpoints e on e.id = d.endpoint_id
             where d.status = 'PENDING' and e.enabled`,
);

export type AttemptResult = 'success' | 'http_error' | 'timeout' | 'network_error' | 'refused';

/** Delivery metrics (D18), registered on the service's /metrics registry. */
export class WebhookMetrics {
  readonly attempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook delivery attempts by result',
    labelNames: ['result'] as const,
    registers: [],
  });
  readonly deliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook messages that reached a final outcome (succeeded, or failed after the last retry)',
    labelNames: ['outcome'] as const,
    registers: [],
  });
  readonly duration = new Histogram({
    name: 'webhook_attempt_duration_seconds',
    help: 'Time from the start of an attempt to its outcome',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [],
  });
  readonly oldestPending: Gauge;

  constructor(orm: MikroORM) {
    this.oldestPending = new Gauge({
      name: 'webhook_oldest_pending_seconds',
      help: 'Age of the oldest message still waiting for delivery to an enabled endpoint (0 when none)',
      registers: [],
      async collect() {
        const rows = await executeOnOrm(orm.em.fork(), OLDEST_PENDING, {}).catch(() => [{ age: null }]);
        this.set(Math.max(0, Number(rows[0]?.age ?? 0)));
      },
    });
  }

  all(): Metric[] {
    return [this.attempts, this.deliveries, this.duration, this.oldestPending];
  }
}
