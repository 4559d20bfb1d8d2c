import type { MemberEntity } from './member.entity';

/** A member as the admin CLI prints it. */
export function memberView(member: MemberEntity) {
  return {
    id: member.id,
    organizationId: member.organization.id,
    email: member.email,
    name: member.name,
    role: member.role,
    createdAt: member.createdAt.toISOString(),
  };
}
