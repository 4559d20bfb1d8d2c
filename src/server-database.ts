import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { startAdminChannel, type AdminChannel } from './doors/cli/admin-channel';
import type { Config } from './foundation/config';
import { openDatabase } from './schema/database';
import { claimDataDir, DataDirBusyError, type DataDirLock } from './platform/db/data-dir-lock';
import type { EmbeddedPostgres } from './schema/embedded-postgres';
import type { ServerSecrets } from './platform/crypto/server-secrets';

export interface ServerDatabase {
  readonly orm: MikroORM;
  readonly embedded: boolean;
  /** Human description for the start-up message, without credentials. */
  readonly description: string;
  /** Serves the admin CLI (embedded database only: the CLI cannot open it while the server does). */
  startAdminChannel(logger: Logger, secrets: ServerSecrets): Promise<void>;
  close(): Promise<void>;
}

function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `PostgreSQL at ${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL)';
  }
}

/** The server's database: DATABASE_URL, or the embedded PostgreSQL (PGlite) in DATA_DIR/pgdata. */
export async function openServerDatabase(config: Config, logger?: Logger): Promise<ServerDatabase> {
  const driverLog = (level: 'warn' | 'error', message: string) => logger?.[level]({ source: 'database driver' }, message);
  if (config.databaseUrl) {
    const orm = await openDatabase({ clientUrl: config.databaseUrl, driverLog, timeouts: config.databaseTimeouts });
    return {
      orm,
      embedded: false,
      description: describeUrl(config.databaseUrl),
      startAdminChannel: async () => undefined,
      close: () => orm.close(),
    };
  }

  const claim = await claimDataDir(config.dataDir);
  if (claim.kind === 'server') {
    throw new DataDirBusyError(`another server (pid ${claim.holder.pid}) is using the embedded database in ${config.dataDir}`);
  }
  const lock: DataDirLock = claim.lock;
  const pgdata = path.join(config.dataDir, 'pgdata');
  let embedded: EmbeddedPostgres | undefined;
  let orm: MikroORM | undefined;
  let channel: AdminChannel | undefined;
  const close = async () => {
    await channel?.close();
    await orm?.close();
    await embedded?.close();
    lock.release();
  };
  try {
    // PGlite is loaded only when it is used: a server on PostgreSQL starts faster and smaller without it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startEmbeddedPostgres } = require('./schema/embedded-postgres') as typeof import('./schema/embedded-postgres');
    embedded = await startEmbeddedPostgres({ dataDir: pgdata });
    orm = await openDatabase({ clientUrl: embedded.url, pool: embedded.pool, driverLog, timeouts: config.databaseTimeouts });
  } catch (error) {
    await close();
    throw error;
  }
  const opened = orm;
  return {
    orm: opened,
    embedded: true,
    description: `embedded PostgreSQL (PGlite) in ${pgdata}`,
    async startAdminChannel(logger, secrets) {
      channel = await startAdminChannel({ orm: opened, config, logger, secrets });
      lock.advertise(channel.port, channel.token);
    },
    close,
  };
}
