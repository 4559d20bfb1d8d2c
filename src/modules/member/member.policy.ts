import { isEmail } from 'class-validator';
import { AppError, type FieldError } from '../../foundation/errors/app-error';
import { MemberRole } from './member.entity';

/*
 * Every rule about members (docs/decisions/ D8, D19), as pure functions of the loaded state: no
 * database. The member commands call them between loading and applying.
 */

/** `admin` or `member`, any case; MEMBER when absent. */
export function parseRole(value: string | undefined): MemberRole | undefined {
  return Object.values(MemberRole).find((role) => role.toLowerCase() === (value ?? 'member').toLowerCase());
}

/** Emails are kept trimmed and in lower case, so one address is one member of an organization. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A new member's fields, every failing one at once (email and name already normalized). */
export function newMemberErrors(member: { email: string; name: string; role: MemberRole | undefined }): FieldError[] {
  const errors: FieldError[] = [];
  if (!isEmail(member.email) || member.email.length > 254) errors.push({ field: 'email', message: 'email must be an email address of at most 254 characters' });
  if (member.name === '' || member.name.length > 200) errors.push({ field: 'name', message: 'name must be 1 to 200 characters' });
  if (member.role === undefined) errors.push({ field: 'role', message: 'role must be admin or member' });
  return errors;
}

/** D8: one email is one member within an organization. */
export function duplicateEmailError(email: string): FieldError {
  return { field: 'email', message: `a member with email "${email}" already exists in this organization` };
}

/** Who asks for a change: a signed-in dashboard ADMIN, or the operator with the admin CLI. */
export type MemberChangeActor = 'dashboard' | 'operator';

/**
 * D19: the organization keeps at least one ADMIN through the dashboard: an admin cannot be demoted or
 * removed while no other admin remains (`otherAdmins`). `to` is the new role, or null for a removal.
 * The operator (admin CLI, break-glass) may remove anyone; it adds admins with `member add`.
 */
export function assertKeepsAnAdmin(actor: MemberChangeActor, member: { role: MemberRole }, to: MemberRole | null, otherAdmins: number): void {
  if (actor === 'operator') return;
  if (member.role !== MemberRole.ADMIN || to === MemberRole.ADMIN) return;
  if (otherAdmins === 0) {
    throw AppError.validation([{ field: 'id', message: 'the organization must keep at least one admin: make someone else admin first' }]);
  }
}

/** An invitation link works for a day, once; a new one replaces the earlier ones. */
export const INVITATION_LIFETIME_MS = 24 * 3_600_000;

export function invitationExpiry(now: Date): Date {
  return new Date(now.getTime() + INVITATION_LIFETIME_MS);
}

export function invalidInvitationError(): AppError {
  return AppError.validation([{ field: 'token', message: 'the invitation link is invalid, already used or expired; ask an admin for a new one' }]);
}
