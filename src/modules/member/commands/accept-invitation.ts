import { deleteSessionsOf, setPasswordHash, takeInvitation } from '../credentials.repository';
import { invalidInvitationError } from '../member.policy';
import { assertAcceptablePassword, hashPassword } from '../password';
import { hashSecretToken, SECRET_TOKEN_PATTERN } from '../secret-token';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';

/**
 * POST /dashboard/api/invitations/accept: uses a link once, sets the member's password and ends the
 * member's sessions (a new password signs every old session out). Returns the member's id.
 */
export async function acceptInvitation(scope: UnitOfWorkScope, token: unknown, password: unknown): Promise<string> {
  if (typeof token !== 'string' || !SECRET_TOKEN_PATTERN.test(token)) throw invalidInvitationError();
  assertAcceptablePassword(password);
  const passwordHash = await hashPassword(password);
  return inUnitOfWork(scope, async (tx) => {
    const memberId = await takeInvitation(tx, hashSecretToken(token));
    if (memberId === undefined) throw invalidInvitationError();
    await setPasswordHash(tx, memberId, passwordHash);
    await deleteSessionsOf(tx, memberId);
    return memberId;
  });
}
