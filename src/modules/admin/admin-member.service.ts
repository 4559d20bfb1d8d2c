import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../errors/app-error';
import { MemberEntity, MemberRole } from '../member/member.entity';

const memberNotFound = (id: string) => new AppError('NOT_FOUND', `No member with id "${id}"`, { id });
const lastAdmin = () =>
  AppError.validation([{ field: 'id', message: 'the organization must keep at least one admin: make someone else admin first' }]);

/**
 * Role changes and removals within one organization. The organization keeps at least one ADMIN; the
 * organization's row is locked so two concurrent demotions cannot both pass that rule.
 */
export class AdminMemberService {
  constructor(
    private readonly em: EntityManager,
    private readonly organizationId: string,
  ) {}

  async changeRole(id: string, role: MemberRole): Promise<MemberEntity> {
    return this.em.transactional(async (em) => {
      const member = await this.locked(em, id);
      if (member.role === MemberRole.ADMIN && role !== MemberRole.ADMIN) await this.assertAnotherAdmin(em, id);
      member.role = role;
      await em.flush();
      return member;
    });
  }

  /** Removes a member: their sessions, password and invitations go with them, and keys they made stop. */
  async remove(id: string): Promise<MemberEntity> {
    return this.em.transactional(async (em) => {
      const member = await this.locked(em, id);
      if (member.role === MemberRole.ADMIN) await this.assertAnotherAdmin(em, id);
      await em.removeAndFlush(member);
      return member;
    });
  }

  private async locked(em: EntityManager, id: string): Promise<MemberEntity> {
    await em.execute('select id from organizations where id = ? for update', [this.organizationId]);
    const member = await em.findOne(MemberEntity, { id, organization: this.organizationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!member) throw memberNotFound(id);
    return member;
  }

  private async assertAnotherAdmin(em: EntityManager, id: string): Promise<void> {
    const others = await em.count(MemberEntity, { organization: this.organizationId, role: MemberRole.ADMIN, id: { $ne: id } });
    if (others === 0) throw lastAdmin();
  }
}
