import type { MikroORM } from '@mikro-orm/postgresql';
import type { Metric } from 'prom-client';
import type { Logger } from 'pino';
import type { Config } from '../../foundation/config';
import { WebhookMetrics } from './webhook-metrics';
import { webhookRuntime, type WebhookRuntime } from '../../platform/outbox/webhook-runtime';
import { WebhookWorker } from './webhook-worker';
import { WebhookWake } from './webhook-wake';
import { sparesConnections } from '../../platform/db/orm-config';
import type { ServerSecrets } from '../../platform/crypto/server-secrets';
import { preparedStatements, type PreparedStatements } from '../../platform/db/prepared-statements';

export interface Webhooks {
  readonly runtime: WebhookRuntime;
  readonly metrics: readonly Metric[];
  close(): Promise<void>;
}

/**
 * Webhooks of one server process: the runtime of its commands, its metrics, and (unless turned off) a
 * worker, whose statements run on `statements` (the service's pool of one-statement writes) when
 * there is one, else as prepared statements on the ORM's pool.
 */
export async function startWebhooks(config: Config, orm: MikroORM, logger: Logger, secrets: ServerSecrets, statements?: PreparedStatements): Promise<Webhooks> {
  const settings = config.webhooks;
  const metrics = new WebhookMetrics(orm);
  let worker: WebhookWorker | undefined;
  // A database that accepts a single connection cannot spare one for LISTEN: the worker polls it.
  const spares = sparesConnections(orm.config.get('pool'));
  const runs = statements ?? preparedStatements(orm.em);
  const wake = new WebhookWake(runs, () => worker?.wake(), logger, spares);
  const runtime = webhookRuntime(settings, secrets, () => wake.wake());
  if (settings.worker) {
    const listenUrl = spares ? orm.config.get('clientUrl') : undefined;
    worker = new WebhookWorker({ statements: runs, settings, secrets: runtime.secrets, metrics, logger, listenUrl });
    await worker.start();
  }
  return { runtime, metrics: metrics.all(), close: async () => worker?.stop() };
}
