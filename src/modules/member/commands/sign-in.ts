import type { EntityManager } from '@mikro-orm/postgresql';
import type { DashboardSettings } from '../../../foundation/dashboard-settings';
import { addSession, forgetFailuresBefore, forgetFailuresOf, passwordHashesOf, recentFailures, recordFailure } from '../credentials.repository';
import { normalizeEmail } from '../member.policy';
import { verifyPassword } from '../password';
import { hashSecretToken, newSecretToken } from '../secret-token';
import { assertSignInAllowed, assertSignInBody, SIGN_IN_LIMITS, wrongCredentialsError } from '../sign-in.policy';

/**
 * POST /dashboard/api/sign-in: email and password to a new session. Failures are counted in
 * PostgreSQL, so every instance shares the limits (sign-in.policy.ts); past either one, even the right
 * password is refused until the window passes. Returns the session id (for the cookie) and its
 * anti-forgery token.
 */
export async function signIn(
  em: EntityManager,
  settings: DashboardSettings,
  credentials: { email: unknown; password: unknown; clientIp: string },
): Promise<{ sessionId: string; csrfToken: string }> {
  const { email, password, clientIp } = credentials;
  assertSignInBody(email, password);
  const account = normalizeEmail(email);
  assertSignInAllowed(await recentFailures(em, account, clientIp, SIGN_IN_LIMITS.windowMs), Date.now());

  const candidates = await passwordHashesOf(em, account);
  // An unknown email costs as long as a wrong password.
  if (candidates.length === 0) await verifyPassword(undefined, password as string);
  for (const candidate of candidates) {
    if (await verifyPassword(candidate.passwordHash, password as string)) {
      await forgetFailuresOf(em, account);
      return startSession(em, settings, candidate.memberId);
    }
  }
  await recordFailure(em, account, clientIp);
  // Failures older than the window count for nothing: now and then, forget them.
  if (Math.random() < 0.01) await forgetFailuresBefore(em, SIGN_IN_LIMITS.windowMs);
  throw wrongCredentialsError();
}

async function startSession(em: EntityManager, settings: DashboardSettings, memberId: string): Promise<{ sessionId: string; csrfToken: string }> {
  const sessionId = newSecretToken();
  const csrfToken = newSecretToken();
  await addSession(em, memberId, {
    idHash: hashSecretToken(sessionId),
    csrfToken,
    expiresAt: new Date(Date.now() + settings.absoluteLifetimeMs),
    idleTimeoutMs: settings.idleTimeoutMs,
  });
  return { sessionId, csrfToken };
}
