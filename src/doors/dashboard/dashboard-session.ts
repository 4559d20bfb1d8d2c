import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext, OrganizationSnapshot } from '../../platform/auth/auth-context';
import { permissionsOfRole } from '../../platform/auth/permissions';
import type { DashboardSettings } from '../../foundation/dashboard-settings';
import { findLiveSession, touchSession } from '../../modules/member/credentials.repository';
import { hashSecretToken, SECRET_TOKEN_PATTERN } from '../../modules/member/secret-token';

export interface DashboardSession {
  readonly auth: AuthContext;
  readonly memberId: string;
  readonly csrfToken: string;
}

/** Writes of last_seen_at are skipped within this window (the idle timeout is minutes long). */
const TOUCH_INTERVAL_MS = 15_000;

/**
 * The session a cookie names, read on every request (no cache), so a sign-out, a removed member or a
 * new role counts on every instance at once. Sessions start in commands/sign-in.ts and end in
 * commands/sign-out.ts (src/modules/member/).
 */
export async function findSession(em: EntityManager, settings: DashboardSettings, id: string | undefined): Promise<DashboardSession | undefined> {
  if (id === undefined || !SECRET_TOKEN_PATTERN.test(id)) return undefined;
  const idHash = hashSecretToken(id);
  const row = await findLiveSession(em, idHash, settings.idleTimeoutMs);
  if (row === undefined) return undefined;
  if (Date.now() - new Date(row.last_seen_at).getTime() > TOUCH_INTERVAL_MS) await touchSession(em, idHash);
  const organization: OrganizationSnapshot = {
    id: row.organization_id,
    timezone: row.timezone,
    plan: row.plan,
    allowedIps: row.allowed_ips,
    restrictionMode: row.restriction_mode,
    rateLimitPerMinute: row.rate_limit_per_minute,
    holdMinutes: row.hold_minutes,
    waitlistOfferMinutes: row.waitlist_offer_minutes,
  };
  const role = row.role === 'ADMIN' ? 'ADMIN' : 'MEMBER';
  return {
    memberId: row.member_id,
    csrfToken: row.csrf_token,
    auth: { apiKeyId: '', organization, permissions: permissionsOfRole(role), session: { memberId: row.member_id, role } },
  };
}
