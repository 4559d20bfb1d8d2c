import type { Permission } from './permissions';
import { AppError } from '../../foundation/errors/app-error';

/** The organization settings a request needs, as cached with its key. */
export interface OrganizationSnapshot {
  readonly id: string;
  readonly timezone: string;
  readonly plan: string;
  readonly allowedIps: readonly string[];
  readonly restrictionMode: string;
  readonly rateLimitPerMinute: number | null;
  /** How long a hold lasts when its booking does not say, and the longest one may ask for (D20). */
  readonly holdMinutes: number;
  /** How long a waiting-list offer is held (D21). */
  readonly waitlistOfferMinutes: number;
}

/** A signed-in dashboard member standing in for a key on /graphql (D19). */
export interface SessionPrincipal {
  readonly memberId: string;
  readonly role: 'ADMIN' | 'MEMBER';
}

/** Who is calling: one key of one organization (or a dashboard session), with its effective permissions. */
export interface AuthContext {
  /** The key's id; empty for a dashboard session (see `session`). */
  readonly apiKeyId: string;
  /** The key's public prefix (set by the key authenticator; absent for a dashboard session). */
  readonly apiKeyPrefix?: string;
  /** Set only for a signed-in dashboard member; no API key ever carries it. */
  readonly session?: SessionPrincipal;
  readonly organization: OrganizationSnapshot;
  readonly permissions: readonly Permission[];
}

/** Deny unless the key holds `permission`: 403 FORBIDDEN with what was needed and what it has. */
export function requirePermission(auth: AuthContext, permission: Permission): void {
  if (auth.permissions.includes(permission)) return;
  if (auth.session) {
    throw new AppError('FORBIDDEN', `This dashboard session lacks the "${permission}" permission`, {
      requiredPermission: permission,
      currentPermissions: [...auth.permissions],
    });
  }
  throw AppError.forbidden(permission, auth.permissions);
}
