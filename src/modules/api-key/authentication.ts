import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { AuthChangeListener, listenOnOwnConnection, type ConnectionPool } from '../../platform/auth/auth-change-listener';
import { LastUsedRecorder } from '../../platform/auth/last-used-recorder';
import { sparesConnections } from '../../platform/db/orm-config';

export interface Authentication {
  readonly authenticator: ApiKeyAuthenticator;
  readonly lastUsed: LastUsedRecorder;
  /** Absent on a single-connection database (the embedded one): its one connection listens instead (listenOnOwnConnection). */
  readonly listener: AuthChangeListener | undefined;
  close(): Promise<void>;
}

/** The authenticator with its cache kept honest by LISTEN/NOTIFY, and lastUsedAt bookkeeping. */
export async function startAuthentication(orm: MikroORM, logger: Logger): Promise<Authentication> {
  const lastUsed = new LastUsedRecorder(orm, logger);
  const authenticator = new ApiKeyAuthenticator(orm, { lastUsed });
  const onChange = (change: Parameters<ApiKeyAuthenticator['applyChange']>[0]) => authenticator.applyChange(change);
  let listener: AuthChangeListener | undefined;
  if (sparesConnections(orm.config.get('pool'))) {
    listener = new AuthChangeListener(String(orm.config.get('clientUrl')), onChange, logger);
    authenticator.changes = listener;
    await listener.start();
  } else {
    // A database that accepts a single connection cannot spare one for LISTEN (it would starve the
    // pool): its one connection listens (listenOnOwnConnection).
    const pool = (orm.em.getConnection().getKnex() as unknown as { client: ConnectionPool }).client;
    authenticator.changes = await listenOnOwnConnection(pool, onChange);
    logger.info("single-connection database: the ORM's connection listens for credential changes");
  }
  return {
    authenticator,
    lastUsed,
    listener,
    async close() {
      await listener?.stop();
      await lastUsed.flush();
    },
  };
}
