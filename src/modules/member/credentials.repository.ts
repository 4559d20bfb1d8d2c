import type { EntityManager } from '@mikro-orm/postgresql';
import { executeOnOrm } from '../../platform/db/prepared-statements';
import { sqlStatements } from '../../platform/db/sql-statement';
import { countDeleted } from '../../platform/retention/retention-job';

const sql = sqlStatements(__filename);

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
  await executeOnOrm(tx, DELETE_INVITATIONS, { memberId });
  await executeOnOrm(tx, INSERT_INVITATION, { tokenHash, expiresAt, memberId });
}

const DELETE_INVITATIONS = sql.statement<{ memberId: string }>('deleteInvitationsOf', 'delete from member_invitations where member_id = :memberId');
const INSERT_INVITATION = sql.statement<{ tokenHash: string; expiresAt: Date; memberId: string }>(
  'insertInvitation',
  'insert into member_invitations (token_hash, organization_id, member_id, expires_at) select :tokenHash, organization_id, id, :expiresAt from members where id = :memberId',
);
const TAKE_INVITATION = sql.statement<{ tokenHash: string }, { member_id: string }>(
  'takeInvitation',
  'delete from member_invitations where token_hash = :tokenHash and expires_at > now() returning member_id',
);

/** Uses up an unexpired invitation: the member it was for, or undefined (unknown, used or expired). */
export async function takeInvitation(em: EntityManager, tokenHash: string): Promise<string | undefined> {
  const rows = await executeOnOrm(em, TAKE_INVITATION, { tokenHash });
  return rows[0]?.member_id;
}

const SET_PASSWORD_HASH = sql.statement<{ passwordHash: string; memberId: string }>(
  'setPasswordHash',
  `insert into member_credentials (organization_id, member_id, password_hash, updated_at) select organization_id, id, :passwordHash, now() from members where id = :memberId
     on conflict (organization_id, member_id) do update set password_hash = excluded.password_hash, updated_at = now()`,
);

export async function setPasswordHash(em: EntityManager, memberId: string, passwordHash: string): Promise<void> {
  await executeOnOrm(em, SET_PASSWORD_HASH, { passwordHash, memberId });
}

const PASSWORD_HASHES = sql.statement<{ email: string }, { member_id: string; password_hash: string }>(
  'passwordHashesOf',
  `select c.member_id, c.password_hash from member_credentials c join members m on m.id = c.member_id
      where m.email = :email order by m.created_at, m.id`,
);

/** The members with a password under `email` (one per organization at most), oldest first. */
export async function passwordHashesOf(em: EntityManager, email: string): Promise<Array<{ memberId: string; passwordHash: string }>> {
  const rows = await executeOnOrm(em, PASSWORD_HASHES, { email });
  return rows.map((row) => ({ memberId: row.member_id, passwordHash: row.password_hash }));
}

// ---- Failed sign-ins ---------------------------------------------------------------------------

const RECENT_FAILURES = sql.statement<{ email: string; clientIp: string; windowMs: number }, { by_account: string; by_address: string; oldest: Date | null }>(
  'recentFailures',
  `select count(*) filter (where email = :email) as by_account, count(*) filter (where ip = :clientIp) as by_address, min(at) as oldest
       from sign_in_failures where (email = :email or ip = :clientIp) and at > now() - :windowMs * interval '1 millisecond'`,
);
const RECORD_FAILURE = sql.statement<{ email: string; clientIp: string }>('recordFailure', 'insert into sign_in_failures (email, ip) values (:email, :clientIp)');
const FORGET_FAILURES_OF = sql.statement<{ email: string }>('forgetFailuresOf', 'delete from sign_in_failures where email = :email');
const FORGET_FAILURES_BEFORE = sql.statement<{ windowMs: number }>(
  'forgetFailuresBefore',
  `delete from sign_in_failures where at < now() - :windowMs * interval '1 millisecond'`,
);

/** Failures within the window by this account and by this address, and when the oldest of them happened. */
export async function recentFailures(
  em: EntityManager,
  email: string,
  clientIp: string,
  windowMs: number,
): Promise<{ byAccount: number; byAddress: number; oldest: Date | null }> {
  const [row] = await executeOnOrm(em, RECENT_FAILURES, { email, clientIp, windowMs });
  return { byAccount: Number(row.by_account), byAddress: Number(row.by_address), oldest: row.oldest ? new Date(row.oldest) : null };
}

export async function recordFailure(em: EntityManager, email: string, clientIp: string): Promise<void> {
  await executeOnOrm(em, RECORD_FAILURE, { email, clientIp });
}

export async function forgetFailuresOf(em: EntityManager, email: string): Promise<void> {
  await executeOnOrm(em, FORGET_FAILURES_OF, { email });
}

export async function forgetFailuresBefore(em: EntityManager, windowMs: number): Promise<void> {
  await executeOnOrm(em, FORGET_FAILURES_BEFORE, { windowMs });
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

const DROP_ENDED_SESSIONS_OF = sql.statement<{ memberId: string; idleTimeoutMs: number }>(
  'dropEndedSessionsOf',
  `delete from dashboard_sessions where member_id = :memberId and (expires_at <= now() or last_seen_at <= now() - :idleTimeoutMs * interval '1 millisecond')`,
);
const INSERT_SESSION = sql.statement<{ idHash: string; csrfToken: string; expiresAt: Date; memberId: string }>(
  'insertSession',
  'insert into dashboard_sessions (id_hash, organization_id, member_id, csrf_token, expires_at) select :idHash, organization_id, id, :csrfToken, :expiresAt from members where id = :memberId',
);
const LIVE_SESSION = sql.statement<{ idHash: string; idleTimeoutMs: number }, SessionRow>(
  'findLiveSession',
  `select s.member_id, s.csrf_token, s.last_seen_at, m.role, o.id as organization_id, o.timezone, o.plan, o.allowed_ips,
            o.restriction_mode, o.rate_limit_per_minute, o.hold_minutes, o.waitlist_offer_minutes
       from dashboard_sessions s
       join members m on m.id = s.member_id
       join organizations o on o.id = m.organization_id
      where s.id_hash = :idHash and s.expires_at > now() and s.last_seen_at > now() - :idleTimeoutMs * interval '1 millisecond'`,
);
const TOUCH_SESSION = sql.statement<{ idHash: string }>('touchSession', 'update dashboard_sessions set last_seen_at = now() where id_hash = :idHash');
const DELETE_SESSION = sql.statement<{ idHash: string }>('deleteSession', 'delete from dashboard_sessions where id_hash = :idHash');
const DELETE_SESSIONS_OF = sql.statement<{ memberId: string }>('deleteSessionsOf', 'delete from dashboard_sessions where member_id = :memberId');

/** Adds a session, first dropping the member's sessions that have ended (expired or idle). */
export async function addSession(
  em: EntityManager,
  memberId: string,
  session: { idHash: string; csrfToken: string; expiresAt: Date; idleTimeoutMs: number },
): Promise<void> {
  await executeOnOrm(em, DROP_ENDED_SESSIONS_OF, { memberId, idleTimeoutMs: session.idleTimeoutMs });
  await executeOnOrm(em, INSERT_SESSION, { idHash: session.idHash, csrfToken: session.csrfToken, expiresAt: session.expiresAt, memberId });
}

/** A live session (neither expired nor idle) with its member's role and organization, one statement. */
export async function findLiveSession(em: EntityManager, idHash: string, idleTimeoutMs: number): Promise<SessionRow | undefined> {
  const rows = await executeOnOrm(em, LIVE_SESSION, { idHash, idleTimeoutMs });
  return rows[0];
}

export async function touchSession(em: EntityManager, idHash: string): Promise<void> {
  await executeOnOrm(em, TOUCH_SESSION, { idHash });
}

export async function deleteSession(em: EntityManager, idHash: string): Promise<void> {
  await executeOnOrm(em, DELETE_SESSION, { idHash });
}

/** Ends every session of a member (a new password signs every old session out). */
export async function deleteSessionsOf(em: EntityManager, memberId: string): Promise<void> {
  await executeOnOrm(em, DELETE_SESSIONS_OF, { memberId });
}

// ---- Retention: rows that can never be used again, deleted by the retention job -------------------

const DELETE_ENDED_SESSIONS = sql.statement<{ idleTimeoutMs: number; limit: number }>(
  'deleteEndedSessions',
  `with gone as (
       delete from dashboard_sessions where id_hash in (
         select id_hash from dashboard_sessions
          where expires_at <= now() or last_seen_at <= now() - :idleTimeoutMs * interval '1 millisecond'
          limit :limit for update skip locked)
       returning 1)
     select count(*)::int as deleted from gone`,
);

/** Sessions that have ended (past their absolute lifetime, or idle longer than `idleTimeoutMs`): at most `limit`. */
export function deleteEndedSessions(em: EntityManager, idleTimeoutMs: number, limit: number): Promise<number> {
  return countDeleted(em, DELETE_ENDED_SESSIONS, { idleTimeoutMs, limit });
}

const DELETE_EXPIRED_INVITATIONS = sql.statement<{ limit: number }>(
  'deleteExpiredInvitations',
  `with gone as (
       delete from member_invitations where token_hash in (
         select token_hash from member_invitations where expires_at <= now() limit :limit for update skip locked)
       returning 1)
     select count(*)::int as deleted from gone`,
);

/** Invitation links past their 24 hours (takeInvitation already refuses them): at most `limit`. */
export function deleteExpiredInvitations(em: EntityManager, limit: number): Promise<number> {
  return countDeleted(em, DELETE_EXPIRED_INVITATIONS, { limit });
}

const DELETE_OLD_SIGN_IN_FAILURES = sql.statement<{ windowMs: number; limit: number }>(
  'deleteOldSignInFailures',
  `with gone as (
       delete from sign_in_failures where id in (
         select id from sign_in_failures where at < now() - :windowMs * interval '1 millisecond'
          order by at limit :limit for update skip locked)
       returning 1)
     select count(*)::int as deleted from gone`,
);

/** Failed sign-ins older than the window they count in (recentFailures ignores them): at most `limit`. */
export function deleteOldSignInFailures(em: EntityManager, windowMs: number, limit: number): Promise<number> {
  return countDeleted(em, DELETE_OLD_SIGN_IN_FAILURES, { windowMs, limit });
}
