import type { EntityManager } from '@mikro-orm/postgresql';
import { countDeleted } from '../../platform/retention/retention-job';

/*
 * The only place that reaches a member's dashboard credentials: invitation links (member_invitations),
 * password hashes (member_credentials), sessions (dashboard_sessions) and failed sign-ins
 * (sign_in_failures). Tokens and session ids are stored only as their SHA-256; every row of a member
 * goes with it (ON DELETE CASCADE).
 */

// ---- Invitations and passwords -----------------------------------------------------------------

/**
 * Replaces the member's invitation links with one (earlier links stop working). Called inside the
 * unit of work of the mutation that issues the link (issue-invitation.ts), whose transaction makes the
 * delete and the insert one change: no transaction of its own.
 */
export async function replaceInvitation(tx: EntityManager, memberId: string, tokenHash: string, expiresAt: Date): Promise<void> {
  await tx.execute('delete from member_invitations where member_id = ?', [memberId]);
  await tx.execute('insert into member_invitations (token_hash, organization_id, member_id, expires_at) select ?, organization_id, id, ? from members where id = ?', [
    tokenHash,
    expiresAt,
    memberId,
  ]);
}

/** Uses up an unexpired invitation: the member it was for, or undefined (unknown, used or expired). */
export async function takeInvitation(em: EntityManager, tokenHash: string): Promise<string | undefined> {
  const rows: Array<{ member_id: string }> = await em.execute(
    'delete from member_invitations where token_hash = ? and expires_at > now() returning member_id',
    [tokenHash],
  );
  return rows[0]?.member_id;
}

export async function setPasswordHash(em: EntityManager, memberId: string, passwordHash: string): Promise<void> {
  await em.execute(
    `insert into member_credentials (organization_id, member_id, password_hash, updated_at) select organization_id, id, ?, now() from members where id = ?
     on conflict (organization_id, member_id) do update set password_hash = excluded.password_hash, updated_at = now()`,
    [passwordHash, memberId],
  );
}

/** The members with a password under `email` (one per organization at most), oldest first. */
export async function passwordHashesOf(em: EntityManager, email: string): Promise<Array<{ memberId: string; passwordHash: string }>> {
  const rows: Array<{ member_id: string; password_hash: string }> = await em.execute(
    `select c.member_id, c.password_hash from member_credentials c join members m on m.id = c.member_id
      where m.email = ? order by m.created_at, m.id`,
    [email],
  );
  return rows.map((row) => ({ memberId: row.member_id, passwordHash: row.password_hash }));
}

// ---- Failed sign-ins ---------------------------------------------------------------------------

/** Failures within the window by this account and by this address, and when the oldest of them happened. */
export async function recentFailures(
  em: EntityManager,
  email: string,
  clientIp: string,
  windowMs: number,
): Promise<{ byAccount: number; byAddress: number; oldest: Date | null }> {
  const [row]: Array<{ by_account: string; by_address: string; oldest: Date | null }> = await em.execute(
    `select count(*) filter (where email = ?) as by_account, count(*) filter (where ip = ?) as by_address, min(at) as oldest
       from sign_in_failures where (email = ? or ip = ?) and at > now() - ? * interval '1 millisecond'`,
    [email, clientIp, email, clientIp, windowMs],
  );
  return { byAccount: Number(row.by_account), byAddress: Number(row.by_address), oldest: row.oldest ? new Date(row.oldest) : null };
}

export async function recordFailure(em: EntityManager, email: string, clientIp: string): Promise<void> {
  await em.execute('insert into sign_in_failures (email, ip) values (?, ?)', [email, clientIp]);
}

export async function forgetFailuresOf(em: EntityManager, email: string): Promise<void> {
  await em.execute('delete from sign_in_failures where email = ?', [email]);
}

export async function forgetFailuresBefore(em: EntityManager, windowMs: number): Promise<void> {
  await em.execute(`delete from sign_in_failures where at < now() - ? * interval '1 millisecond'`, [windowMs]);
}

// ---- Sessions ----------------------------------------------------------------------------------

export interface SessionRow {
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
  hold_minutes: number;
  waitlist_offer_minutes: number;
}

/** Adds a session, first dropping the member's sessions that have ended (expired or idle). */
export async function addSession(
  em: EntityManager,
  memberId: string,
  session: { idHash: string; csrfToken: string; expiresAt: Date; idleTimeoutMs: number },
): Promise<void> {
  await em.execute(
    `delete from dashboard_sessions where member_id = ? and (expires_at <= now() or last_seen_at <= now() - ? * interval '1 millisecond')`,
    [memberId, session.idleTimeoutMs],
  );
  await em.execute('insert into dashboard_sessions (id_hash, organization_id, member_id, csrf_token, expires_at) select ?, organization_id, id, ?, ? from members where id = ?', [
    session.idHash,
    session.csrfToken,
    session.expiresAt,
    memberId,
  ]);
}

/** A live session (neither expired nor idle) with its member's role and organization, one statement. */
export async function findLiveSession(em: EntityManager, idHash: string, idleTimeoutMs: number): Promise<SessionRow | undefined> {
  const rows: SessionRow[] = await em.execute(
    `select s.member_id, s.csrf_token, s.last_seen_at, m.role, o.id as organization_id, o.timezone, o.plan, o.allowed_ips,
            o.restriction_mode, o.rate_limit_per_minute, o.hold_minutes, o.waitlist_offer_minutes
       from dashboard_sessions s
       join members m on m.id = s.member_id
       join organizations o on o.id = m.organization_id
      where s.id_hash = ? and s.expires_at > now() and s.last_seen_at > now() - ? * interval '1 millisecond'`,
    [idHash, idleTimeoutMs],
  );
  return rows[0];
}

export async function touchSession(em: EntityManager, idHash: string): Promise<void> {
  await em.execute('update dashboard_sessions set last_seen_at = now() where id_hash = ?', [idHash]);
}

export async function deleteSession(em: EntityManager, idHash: string): Promise<void> {
  await em.execute('delete from dashboard_sessions where id_hash = ?', [idHash]);
}

/** Ends every session of a member (a new password signs every old session out). */
export async function deleteSessionsOf(em: EntityManager, memberId: string): Promise<void> {
  await em.execute('delete from dashboard_sessions where member_id = ?', [memberId]);
}

// ---- Retention: rows that can never be used again, deleted by the retention job -------------------

/** Sessions that have ended (past their absolute lifetime, or idle longer than `idleTimeoutMs`): at most `limit`. */
export function deleteEndedSessions(em: EntityManager, idleTimeoutMs: number, limit: number): Promise<number> {
  return countDeleted(
    em,
    `with gone as (
       delete from dashboard_sessions where id_hash in (
         select id_hash from dashboard_sessions
          where expires_at <= now() or last_seen_at <= now() - ? * interval '1 millisecond'
          limit ? for update skip locked)
       returning 1)
     select count(*)::int as deleted from gone`,
    [idleTimeoutMs, limit],
  );
}

/** Invitation links past their 24 hours (takeInvitation already refuses them): at most `limit`. */
export function deleteExpiredInvitations(em: EntityManager, limit: number): Promise<number> {
  return countDeleted(
    em,
    `with gone as (
       delete from member_invitations where token_hash in (
         select token_hash from member_invitations where expires_at <= now() limit ? for update skip locked)
       returning 1)
     select count(*)::int as deleted from gone`,
    [limit],
  );
}

/** Failed sign-ins older than the window they count in (recentFailures ignores them): at most `limit`. */
export function deleteOldSignInFailures(em: EntityManager, windowMs: number, limit: number): Promise<number> {
  return countDeleted(
    em,
    `with gone as (
       delete from sign_in_failures where id in (
         select id from sign_in_failures where at < now() - ? * interval '1 millisecond'
          order by at limit ? for update skip locked)
       returning 1)
     select count(*)::int as deleted from gone`,
    [windowMs, limit],
  );
}
