import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isEmail } from 'class-validator';
import { AppError, type FieldError } from '../../errors/app-error';
import { paginationErrors } from '../../validation/arguments';
import { OrganizationEntity } from '../organization/organization.entity';
import { MemberEntity, MemberRole } from './member.entity';

export interface AddMemberInput {
  organizationId: string;
  email: string;
  name: string;
  /** `admin` or `member`, any case; MEMBER when absent. */
  role?: string;
}

export interface MemberList {
  members: MemberEntity[];
  total: number;
  page: number;
  limit: number;
}

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

const duplicateEmail = (email: string): FieldError => ({
  field: 'email',
  message: `a member with email "${email}" already exists in this organization`,
});

/** The people of an organization (D8). Emails are kept in lower case, so one address is one member. */
export class MemberService {
  constructor(private readonly em: EntityManager) {}

  async add(input: AddMemberInput): Promise<MemberEntity> {
    const email = input.email.trim().toLowerCase();
    const name = input.name.trim();
    const role = Object.values(MemberRole).find((value) => value.toLowerCase() === (input.role ?? 'member').toLowerCase());
    const errors: FieldError[] = [];
    if (!isEmail(email) || email.length > 254) errors.push({ field: 'email', message: 'email must be an email address of at most 254 characters' });
    if (name === '' || name.length > 200) errors.push({ field: 'name', message: 'name must be 1 to 200 characters' });
    if (role === undefined) errors.push({ field: 'role', message: 'role must be admin or member' });
    if (errors.length > 0 || role === undefined) throw AppError.validation(errors);

    const organization = await this.em.findOne(OrganizationEntity, { id: input.organizationId });
    if (!organization) throw AppError.notFound(`No organization with id "${input.organizationId}"`, input.organizationId);
    if ((await this.em.count(MemberEntity, { organization, email })) > 0) throw AppError.validation([duplicateEmail(email)]);

    const member = this.em.create(MemberEntity, { organization, email, name, role });
    try {
      await this.em.flush();
    } catch (error) {
      // Two adds of one address can both pass the check: the unique index decides.
      if (error instanceof UniqueConstraintViolationException) throw AppError.validation([duplicateEmail(email)]);
      throw error;
    }
    return member;
  }

  async list(organizationId: string, query: { page: number; limit: number }): Promise<MemberList> {
    const errors = paginationErrors(query.page, query.limit);
    if (errors.length > 0) throw AppError.validation(errors);
    const [members, total] = await this.em.findAndCount(
      MemberEntity,
      { organization: organizationId },
      { orderBy: { createdAt: 'desc', id: 'desc' }, limit: query.limit, offset: (query.page - 1) * query.limit },
    );
    return { members, total, page: query.page, limit: query.limit };
  }
}
