import type { Permission } from './permissions';
import { AppError } from '../errors/app-error';

/** The organization settings a request needs, as cached with its key. */
export interface OrganizationSnapshot {
  readonly id: string;
  readonly timezone: string;
  readonly plan: string;
  readonly allowedIps: readonly string[];
  readonly restrictionMode: string;
  readonly rateLimitPerMinute: number | null;
}

/** Who is calling: one key of one organization, with that key's permissions. */
export interface AuthContext {
  readonly apiKeyId: string;
  readonly organization: OrganizationSnapshot;
  readonly permissions: readonly Permission[];
}

/** Deny unless the key holds `permission`: 403 FORBIDDEN with what was needed and what it has. */
export function requirePermission(auth: AuthContext, permission: Permission): void {
  if (auth.permissions.includes(permission)) return;
  throw AppError.forbidden(permission, auth.permissions);
}
