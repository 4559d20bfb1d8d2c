import 'reflect-metadata';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { loadConfig, type Config } from '../../src/foundation/config';
import { KEY_FILE } from '../../src/platform/crypto/server-secrets';
import { openDatabase } from '../../src/schema/database';
import { createLogger } from '../../src/foundation/logger';
import { startService, type RunningService } from '../../src/service';
import { HttpsClient } from './https-client';

/**
 * The setting that gives another instance the server secret of a running one (D24: instances on one
 * database share it, or the later one refuses to start): its SECRET_KEY, or the key file it made.
 */
export function sameSecretAs(app: { readonly config: Config }): { SECRET_KEY: string } {
  const { key } = app.config.secret;
  return { SECRET_KEY: key ?? readFileSync(path.join(app.config.dataDir, KEY_FILE), 'utf8').trim() };
}

export interface ServiceInstance {
  readonly client: HttpsClient;
  readonly orm: MikroORM;
  readonly service: RunningService;
  /** What it logged at level error and above (JSON lines). */
  readonly logs: string[];
  close(): Promise<void>;
}

/**
 * Another instance of the real service (its own ORM pool, schema, key cache and port) on an existing
 * database, e.g. a TestApp's `databaseUrl`: what a second server process sees. Closing it leaves the
 * database alone.
 */
export async function startServiceOn(databaseUrl: string, env: Record<string, string> = {}): Promise<ServiceInstance> {
  const orm = await openDatabase({ clientUrl: databaseUrl });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-instance-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'error', ...env });
  const logs: string[] = [];
  let service: RunningService;
  try {
    service = await startService(config, orm, createLogger(config.logLevel, { write: (line: string) => void logs.push(line) }));
  } catch (error) {
    await orm.close(true);
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const ca = readFileSync(path.join(dataDir, 'tls', 'localhost.crt'), 'utf8');
  const client = new HttpsClient(`https://localhost:${service.port}`, ca);
  return {
    client,
    orm,
    service,
    logs,
    async close() {
      client.close();
      await service.close(1_000);
      await orm.close(true);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
