import { singleTableRule, type RetentionRule } from '../../platform/retention/retention-job';
import { deleteEndedSessions, deleteExpiredInvitations, deleteOldSignInFailures } from './credentials.repository';
import { SIGN_IN_LIMITS } from './sign-in.policy';

/**
 * The dashboard's credentials that can never be used again (D19): ended sessions (the idle
 * timeout is DASHBOARD_IDLE_MINUTES, the absolute lifetime DASHBOARD_SESSION_HOURS, written into each
 * session's `expires_at`), invitation links past their 24 hours, and failed sign-ins older than the
 * window in which they count.
 */
export function credentialsRetention(idleTimeoutMs: number): RetentionRule[] {
  return [
    singleTableRule('dashboard_sessions', (em, limit) => deleteEndedSessions(em, idleTimeoutMs, limit)),
    singleTableRule('member_invitations', deleteExpiredInvitations),
    singleTableRule('sign_in_failures', (em, limit) => deleteOldSignInFailures(em, SIGN_IN_LIMITS.windowMs, limit)),
  ];
}
