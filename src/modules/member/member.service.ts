import type { EntityManager } from '@mikro-orm/postgresql';
import { addMember, type AddMemberInput as CommandInput } from './commands/add-member';
import { removeMember } from './commands/remove-member';
import type { MemberEntity } from './member.entity';
import { listMembers } from './member.read-model';
import { organizationOfMember } from './member.repository';
import type { MemberList } from './member.types';

export { memberView } from './member.view';

export interface AddMemberInput extends CommandInput {
  organizationId: string;
}

/**
 * The member commands as the operator calls them, for callers outside src/ (test helpers). Code in
 * src/ calls src/modules/member/commands/*.ts with the organization first.
 */
export class MemberService {
  constructor(private readonly em: EntityManager) {}

  add({ organizationId, ...input }: AddMemberInput): Promise<MemberEntity> {
    return addMember(this.em, organizationId, input);
  }

  list(organizationId: string, query: { page: number; limit: number }): Promise<MemberList> {
    return listMembers(this.em, organizationId, query);
  }

  async remove(memberId: string): Promise<MemberEntity> {
    return removeMember(this.em, await organizationOfMember(this.em, memberId), memberId, 'operator');
  }
}
