import 'reflect-metadata';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { loadConfig, type Config } from '../../src/foundation/config';
import { openDatabase } from '../../src/schema/database';
import { createLogger } from '../../src/foundation/logger';
import { startService, type RunningService, type ServiceHooks } from '../../src/service';
import { createTestDatabase } from './database';
import { HttpsClient } from './https-client';
import { rememberServerSecret } from './server-secret';

export interface TestApp {
  readonly url: string;
  readonly client: HttpsClient;
  readonly orm: MikroORM;
  readonly databaseUrl: string;
  readonly config: Config;
  readonly service: RunningService;
  /** Every log line the server wrote (JSON strings). */
  readonly logs: string[];
  /** SQL statements run since the last `sql.reset()`. */
  readonly sql: { statements: string[]; reset(): void };
  close(): Promise<void>;
}

export interface StartTestAppOptions {
  /** The URL the service uses for its database (e.g. through a TCP proxy); the test's own is given. */
  databaseUrl?: (direct: string) => string;
  /** What the service tells of each finished request (the steps it took). */
  hooks?: ServiceHooks;
}

/**
 * The real service over real HTTPS on a free port, on its own copy of the migrated database.
 * `env` is read like the process environment (e.g. { RATE_LIMIT_PER_MINUTE: '5' }).
 */
export async function startTestApp(env: Record<string, string> = {}, options: StartTestAppOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-test-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env });
  const statements: string[] = [];
  const orm = await openDatabase({
    clientUrl: options.databaseUrl?.(database.url) ?? database.url,
    pool: database.pool,
    timeouts: config.databaseTimeouts,
    onQuery: (message) => {
      // The webhook worker's own polling runs beside the requests on this pool; it is not theirs (a
      // change's own statement that writes the outbox, with its outbox_* CTEs, is).
      const worker = /webhook_(deliveries|attempts)/.test(message) && !/outbox_message/.test(message);
      // Nor are the expiry sweep's look-ups (D20 holds due, D21 offers due), every HOLD_EXPIRY_INTERVAL_MS.
      // Nor are the queue admission's look-ups for queues to pass (D30), every QUEUE_INTERVAL_MS.
      const sweep = /from bookings where status = 'HELD' and expires_at <=|select distinct event_id from waitlist_entries|select u\.organization_id, u\.event_id from event_queues/.test(message);
      if (/^\[query\]/.test(message) && !worker && !sweep) statements.push(message);
    },
  });
  const logs: string[] = [];
  const logger = createLogger(config.logLevel, { write: (line: string) => void logs.push(line) });
  let service: RunningService;
  try {
    service = await startService(config, orm, logger, options.hooks);
  } catch (error) {
    await orm.close(true);
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  rememberServerSecret(database.url, service.secrets.current.secret);
  const ca = readFileSync(config.tlsCertFile ?? path.join(config.dataDir, 'tls', 'localhost.crt'), 'utf8');
  const client = new HttpsClient(`https://localhost:${service.port}`, ca);
  return {
    url: client.baseUrl,
    client,
    orm,
    databaseUrl: database.url,
    config,
    service,
    logs,
    sql: {
      statements,
      reset: () => {
        statements.length = 0;
      },
    },
    async close() {
      client.close();
      await service.close(1_000);
      await orm.close(true);
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
