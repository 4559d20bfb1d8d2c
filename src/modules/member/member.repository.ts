import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import { OrganizationEntity } from '../organization/organization.entity';
import { MemberEntity, MemberRole } from './member.entity';
import { duplicateEmailError } from './member.policy';

/*
 * The only place that reaches the members table through the ORM. The organization is always the first
 * argument after the entity manager: another organization's member is simply not found (D1).
 */

/** The member, or NOT_FOUND. */
export async function findMember(em: EntityManager, organizationId: string, memberId: string): Promise<MemberEntity> {
  const member = await em.findOne(MemberEntity, { id: memberId, organization: organizationId });
  if (!member) throw AppError.memberNotFound(memberId);
  return member;
}

/** The member with its organization loaded (Query.viewer for a session), or null. */
export async function findMemberWithOrganization(em: EntityManager, organizationId: string, memberId: string): Promise<MemberEntity | null> {
  return em.findOne(MemberEntity, { id: memberId, organization: organizationId }, { populate: ['organization'] });
}

/**
 * The operator names a member of any organization (admin CLI): the organization it belongs to, or
 * NOT_FOUND. The scoped functions take it from there.
 */
export async function organizationOfMember(em: EntityManager, memberId: string): Promise<string> {
  const member = await em.findOne(MemberEntity, { id: memberId });
  if (!member) throw AppError.memberNotFound(memberId);
  return member.organization.id;
}

/**
 * The member, locked (SELECT … FOR UPDATE) after its organization's row, or NOT_FOUND: role changes
 * and removals of one organization queue behind each other, so "keep an admin" holds under concurrency.
 */
export async function lockMember(em: EntityManager, organizationId: string, memberId: string): Promise<MemberEntity> {
  await em.findOne(OrganizationEntity, { id: organizationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  const member = await em.findOne(MemberEntity, { id: memberId, organization: organizationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!member) throw AppError.memberNotFound(memberId);
  return member;
}

/** How many ADMINs the organization has besides `memberId`. */
export async function countOtherAdmins(em: EntityManager, organizationId: string, memberId: string): Promise<number> {
  return em.count(MemberEntity, { organization: organizationId, role: MemberRole.ADMIN, id: { $ne: memberId } });
}

export async function emailTaken(em: EntityManager, organizationId: string, email: string): Promise<boolean> {
  return (await em.count(MemberEntity, { organization: organizationId, email })) > 0;
}

/** Adds and writes a member; two adds of one address can both pass the check, so the unique index decides (D8). */
export async function addMember(em: EntityManager, organizationId: string, fields: { email: string; name: string; role: MemberRole }): Promise<MemberEntity> {
  const member = em.create(MemberEntity, { organization: em.getReference(OrganizationEntity, organizationId), ...fields });
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw AppError.validation([duplicateEmailError(fields.email)]);
    throw error;
  }
  return member;
}

/** Removes a member: sessions, password and invitations go with it (ON DELETE CASCADE). */
export async function removeMember(em: EntityManager, member: MemberEntity): Promise<void> {
  await em.removeAndFlush(member);
}

export async function countMembers(em: EntityManager, organizationId: string): Promise<number> {
  return em.count(MemberEntity, { organization: organizationId });
}

/** One page of the organization's members, newest first, with the total. */
export async function pageOfMembers(
  em: EntityManager,
  organizationId: string,
  page: number,
  limit: number,
): Promise<{ members: MemberEntity[]; total: number }> {
  const [members, total] = await em.findAndCount(
    MemberEntity,
    { organization: organizationId },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit, offset: (page - 1) * limit },
  );
  return { members, total };
}

/** The organization's members among `memberIds` (others' and removed ones are left out). */
export async function membersByIds(em: EntityManager, organizationId: string, memberIds: readonly string[]): Promise<MemberEntity[]> {
  return memberIds.length === 0 ? [] : em.find(MemberEntity, { id: { $in: [...memberIds] }, organization: organizationId });
}
