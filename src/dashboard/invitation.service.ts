import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors/app-error';
import { MemberEntity } from '../modules/member/member.entity';
import { assertAcceptablePassword, hashPassword } from './password';
import { hashSecretToken, newSecretToken, SECRET_TOKEN_PATTERN } from './secret-token';

export const INVITATION_LIFETIME_MS = 24 * 3_600_000;

export interface Invitation {
  member: MemberEntity;
  /** Path and fragment of the link: the token travels in the fragment, so no server or proxy logs it. */
  path: string;
  url: string;
  expiresAt: Date;
}

const invalidLink = () =>
  AppError.validation([{ field: 'token', message: 'the invitation link is invalid, already used or expired; ask an admin for a new one' }]);

/** One-time links (24 h) where a member sets a password; only the token's SHA-256 is stored. */
export class InvitationService {
  constructor(private readonly em: EntityManager) {}

  /** A new link for a member of `organizationId` (any organization when undefined: the CLI). Earlier links stop working. */
  async invite(memberId: string, publicUrl: string, organizationId?: string): Promise<Invitation> {
    const member = await this.em.findOne(MemberEntity, organizationId === undefined ? { id: memberId } : { id: memberId, organization: organizationId });
    if (!member) throw new AppError('NOT_FOUND', `No member with id "${memberId}"`, { id: memberId });
    const token = newSecretToken();
    const expiresAt = new Date(Date.now() + INVITATION_LIFETIME_MS);
    await this.em.transactional(async (em) => {
      await em.execute('delete from member_invitations where member_id = ?', [member.id]);
      await em.execute('insert into member_invitations (token_hash, member_id, expires_at) values (?, ?, ?)', [hashSecretToken(token), member.id, expiresAt]);
    });
    const path = `/dashboard/#/invite/${token}`;
    return { member, path, url: `${publicUrl}${path}`, expiresAt };
  }

  /**
   * Uses a link once: sets the member's password and ends the member's sessions (a new password
   * signs every old session out). Returns the member's id.
   */
  async accept(token: unknown, password: unknown): Promise<string> {
    if (typeof token !== 'string' || !SECRET_TOKEN_PATTERN.test(token)) throw invalidLink();
    assertAcceptablePassword(password);
    const passwordHash = await hashPassword(password);
    return this.em.transactional(async (em) => {
      const rows: Array<{ member_id: string }> = await em.execute(
        'delete from member_invitations where token_hash = ? and expires_at > now() returning member_id',
        [hashSecretToken(token)],
      );
      const memberId = rows[0]?.member_id;
      if (memberId === undefined) throw invalidLink();
      await em.execute(
        `insert into member_credentials (member_id, password_hash, updated_at) values (?, ?, now())
         on conflict (member_id) do update set password_hash = excluded.password_hash, updated_at = now()`,
        [memberId, passwordHash],
      );
      await em.execute('delete from dashboard_sessions where member_id = ?', [memberId]);
      return memberId;
    });
  }
}
