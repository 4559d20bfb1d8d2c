import type { EntityManager } from '@mikro-orm/postgresql';
import { deleteSession } from '../credentials.repository';
import { hashSecretToken, SECRET_TOKEN_PATTERN } from '../secret-token';

/** POST /dashboard/api/sign-out: ends the session on every instance at once (sessions are read on every request). */
export async function signOut(em: EntityManager, sessionId: string | undefined): Promise<void> {
  if (sessionId === undefined || !SECRET_TOKEN_PATTERN.test(sessionId)) return;
  await deleteSession(em, hashSecretToken(sessionId));
}
