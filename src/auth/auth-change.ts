import type { EntityManager } from '@mikro-orm/postgresql';

/** The PostgreSQL NOTIFY channel on which every instance hears that cached credentials changed. */
export const AUTH_CHANGE_CHANNEL = 'event_service_auth_change';

/** What changed: some keys (revoked, rotated) or an organization's settings (allowlist, limits, plan). */
export type AuthChange = { apiKeyIds: string[] } | { organizationId: string };

/**
 * Tells every running instance to forget what it cached about the changed keys or organization.
 * Call it inside the transaction that makes the change: PostgreSQL delivers the notification only
 * when (and if) that transaction commits, so no instance hears of a change that did not happen.
 */
export async function publishAuthChange(em: EntityManager, change: AuthChange): Promise<void> {
  await em.execute('select pg_notify(?, ?)', [AUTH_CHANGE_CHANNEL, JSON.stringify(change)]);
}

export function parseAuthChange(payload: string | undefined): AuthChange | undefined {
  try {
    const value = JSON.parse(payload ?? '') as Record<string, unknown>;
    if (Array.isArray(value.apiKeyIds) && value.apiKeyIds.every((id) => typeof id === 'string')) {
      return { apiKeyIds: value.apiKeyIds as string[] };
    }
    if (typeof value.organizationId === 'string') return { organizationId: value.organizationId };
  } catch {
    // fall through: an unreadable payload is treated as "something changed"
  }
  return undefined;
}
