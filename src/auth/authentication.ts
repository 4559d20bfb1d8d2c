import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { AuthChangeListener } from './auth-change-listener';
import { LastUsedRecorder } from './last-used-recorder';

/** How long a key stays cached while change notifications arrive (they evict it at once). */
export const LIVE_CACHE_TTL_MS = 60_000;
/** While they cannot arrive, a cached key is read again this often, so a revocation still lands within a second. */
export const FALLBACK_CACHE_TTL_MS = 400;

export interface Authentication {
  readonly authenticator: ApiKeyAuthenticator;
  readonly lastUsed: LastUsedRecorder;
  readonly listener: AuthChangeListener;
  close(): Promise<void>;
}

/** The authenticator with its cache kept honest by LISTEN/NOTIFY, and lastUsedAt bookkeeping. */
export async function startAuthentication(orm: MikroORM, logger: Logger): Promise<Authentication> {
  const lastUsed = new LastUsedRecorder(orm, logger);
  let listener: AuthChangeListener | undefined;
  const authenticator = new ApiKeyAuthenticator(orm, {
    cacheTtlMs: () => (listener?.isLive() ? LIVE_CACHE_TTL_MS : FALLBACK_CACHE_TTL_MS),
    onAuthenticated: (apiKeyId) => lastUsed.record(apiKeyId),
  });
  listener = new AuthChangeListener(orm.config.get('clientUrl') as string, (change) => authenticator.applyChange(change), logger);
  await listener.start();
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
