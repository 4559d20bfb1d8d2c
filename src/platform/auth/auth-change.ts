/**
 * The PostgreSQL NOTIFY channel on which every instance hears that cached credentials changed. The
 * database announces every change itself (triggers on api_keys and organizations, see the migration
 * auth_change_triggers), in the changing transaction, so no code path can forget to.
 */
export const AUTH_CHANGE_CHANNEL = 'event_service_auth_change';

/** What changed: some keys (revoked, rotated) or an organization's settings (allowlist, limits, plan). */
export type AuthChange = { apiKeyIds: string[] } | { organizationId: string };

export function parseAuthChange(payload: string | undefined): AuthChange | undefined {
  try {
    const value = JSON.parse(payload ?? '') as Record<string, unknown>;
    if (Array.isArray(value.apiKeyIds) && value.apiKeyIds.every((id) => typeof id === 'string')) {
      return { apiKeyIds: value.apiKeyIds };
    }
    if (typeof value.organizationId === 'string') return { organizationId: value.organizationId };
  } catch {
    // fall through: an unreadable payload is treated as "something changed"
  }
  return undefined;
}
