import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext, OrganizationSnapshot } from '../auth/auth-context';
import { permissionsOfRole } from '../auth/permissions';
import type { DashboardSettings } from '../config';
import { hashSecretToken, newSecretToken, SECRET_TOKEN_PATTERN } from './secret-token';

export interface DashboardSession {
  readonly auth: AuthContext;
  readonly memberId: string;
  readonly csrfToken: string;
}

interface SessionRow {
  member_id: string;
  csrf_token: string;
  last_seen_at: Date;
  role: string;
  organization_id: string;
  timezone: string;
  plan: string;
  allowed_ips: string[];
  restriction_mode: string;
  rate_limit_per_minute: number | null;
}

/** Writes of last_seen_at are skipped within this window (the idle timeout is minutes long). */
const TOUCH_INTERVAL_MS = 15_000;

/**
 * Server-side sessions in PostgreSQL: the cookie holds a random id, the table its SHA-256. Every request
 * reads the row (no cache), so a sign-out, a removed member or a new role counts on every instance at once.
 */
export class SessionService {
  constructor(
    private readonly em: EntityManager,
    private readonly settings: DashboardSettings,
  ) {}

  async create(memberId: string): Promise<{ id: string; csrfToken: string }> {
    const id = newSecretToken();
    const csrfToken = newSecretToken();
    await this.em.execute(
      `delete from dashboard_sessions where member_id = ? and (expires_at <= now() or last_seen_at <= now() - ? * interval '1 millisecond')`,
      [memberId, this.settings.idleTimeoutMs],
    );
    await this.em.execute('insert into dashboard_sessions (id_hash, member_id, csrf_token, expires_at) values (?, ?, ?, ?)', [
      hashSecretToken(id),
      memberId,
      csrfToken,
      new Date(Date.now() + this.settings.absoluteLifetimeMs),
    ]);
    return { id, csrfToken };
  }

  async find(id: string | undefined): Promise<DashboardSession | undefined> {
    if (id === undefined || !SECRET_TOKEN_PATTERN.test(id)) return undefined;
    const rows: SessionRow[] = await this.em.execute(
      `select s.member_id, s.csrf_token, s.last_seen_at, m.role, o.id as organization_id, o.timezone, o.plan, o.allowed_ips,
              o.restriction_mode, o.rate_limit_per_minute
         from dashboard_sessions s
         join members m on m.id = s.member_id
         join organizations o on o.id = m.organization_id
        where s.id_hash = ? and s.expires_at > now() and s.last_seen_at > now() - ? * interval '1 millisecond'`,
      [hashSecretToken(id), this.settings.idleTimeoutMs],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    if (Date.now() - new Date(row.last_seen_at).getTime() > TOUCH_INTERVAL_MS) {
      await this.em.execute('update dashboard_sessions set last_seen_at = now() where id_hash = ?', [hashSecretToken(id)]);
    }
    const organization: OrganizationSnapshot = {
      id: row.organization_id,
      timezone: row.timezone,
      plan: row.plan,
      allowedIps: row.allowed_ips,
      restrictionMode: row.restriction_mode,
      rateLimitPerMinute: row.rate_limit_per_minute,
    };
    const role = row.role === 'ADMIN' ? 'ADMIN' : 'MEMBER';
    return {
      memberId: row.member_id,
      csrfToken: row.csrf_token,
      auth: { apiKeyId: '', organization, permissions: permissionsOfRole(role), session: { memberId: row.member_id, role } },
    };
  }

  async destroy(id: string | undefined): Promise<void> {
    if (id === undefined || !SECRET_TOKEN_PATTERN.test(id)) return;
    await this.em.execute('delete from dashboard_sessions where id_hash = ?', [hashSecretToken(id)]);
  }
}
