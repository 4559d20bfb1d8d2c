import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { AuthChangeListener, listenOnOwnConnection, type ConnectionPool } from '../../platform/auth/auth-change-listener';
import { LastUsedRecorder } from '../../platform/auth/last-used-recorder';
import { sparesConnections } from '../../platform/db/orm-config';

/** How long a key stays cached while change notifications arrive (they evict it at once). */
export const LIVE_CACHE_TTL_MS = 60_000;
/** While they cannot arrive, a cached key is read again this often, so a revocation still lands within a second. */
export const FALLBACK_CACHE_TTL_MS = 400;

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
  let listener: AuthChangeListener | undefined;
  let ownConnection: { isLive(): boolean } | undefined;
  const authenticator = new ApiKeyAuthenticator(orm, {
    cacheTtlMs: () => ((listener ?? ownConnection)?.isLive() ? LIVE_CACHE_TTL_MS : FALLBACK_CACHE_TTL_MS),
    onAuthenticated: (apiKeyId) => lastUsed.record(apiKeyId),
  });
  const onChange = (change: Parameters<ApiKeyAuthenticator['applyChange']>[0]) => authenticator.applyChange(change);
  if (sparesConnections(orm.config.get('pool'))) {
    listener = new AuthChangeListener(String(orm.config.get('clientUrl')), onChange, logger);
    await listener.start();
  } else {
    // A database that accepts a single connection cannot spare one for LISTEN (it would starve the
    // pool): its one connection listens (listenOnOwnConnection).
    const pool = (orm.em.getConnection().getKnex() as unknown as { client: ConnectionPool }).client;
    ownConnection = await listenOnOwnConnection(pool, onChange);
    logger.info('single-connection database: the ORM\'s connection listens for credential changes');
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
