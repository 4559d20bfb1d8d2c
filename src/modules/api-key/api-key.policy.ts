import { AppError, type FieldError } from '../../foundation/errors/app-error';
import { isPermission, permissionsOfRole, PERMISSIONS } from '../../platform/auth/permissions';
import { KeyEnvironment } from './api-key.entity';
import { ROTATION_GRACE_HOURS } from './api-key.constants';

/*
 * Every rule about API keys (docs/decisions/ D2, D9, D19), as pure functions of the loaded state:
 * no database, no clock unless given. The key commands call them between loading and applying.
 */

export { ROTATION_GRACE_HOURS };
/** The longest a rotated key may keep working next to its replacement. */
export const MAX_GRACE_HOURS = 30 * 24;
const HOUR = 3_600_000;

/** `live` or `test` (a label: both reach the same data). */
export function parseEnvironment(value: string): KeyEnvironment | undefined {
  return Object.values(KeyEnvironment).find((environment) => String(environment) === value);
}

/** A new key's fields, every failing one at once (the name already trimmed). */
export function newKeyErrors(key: { name: string; permissions: readonly string[]; expiresAt?: Date | null; environment?: string }, now: number): FieldError[] {
  const errors: FieldError[] = [];
  if (key.environment !== undefined && parseEnvironment(key.environment) === undefined) {
    errors.push({ field: 'environment', message: 'environment must be live or test' });
  }
  if (key.name === '' || key.name.length > 200) errors.push({ field: 'name', message: 'name must be 1 to 200 characters' });
  const unknown = key.permissions.filter((permission) => !isPermission(permission));
  if (unknown.length > 0) {
    errors.push({
      field: 'permissions',
      message: `unknown permission ${unknown.map((p) => `"${p}"`).join(', ')}; valid: ${PERMISSIONS.join(', ')}`,
    });
  }
  if (key.permissions.length === 0) errors.push({ field: 'permissions', message: 'give at least one permission' });
  if (key.expiresAt && key.expiresAt.getTime() <= now) errors.push({ field: 'expiresAt', message: 'expiresAt must be in the future' });
  return errors;
}

export function graceHoursErrors(graceHours: number): FieldError[] {
  return Number.isInteger(graceHours) && graceHours >= 0 && graceHours <= MAX_GRACE_HOURS
    ? []
    : [{ field: 'graceHours', message: `the grace period must be 0 to ${MAX_GRACE_HOURS} hours` }];
}

/** Only a usable key is rotated: a revoked or expired one is replaced by creating a new key. */
export function assertRotatable(key: { revokedAt: Date | null; expiresAt: Date | null }, now: number): void {
  if (key.revokedAt !== null) throw AppError.validation([{ field: 'keyId', message: 'the key is revoked; create a new one instead' }]);
  if (key.expiresAt !== null && key.expiresAt.getTime() <= now) {
    throw AppError.validation([{ field: 'keyId', message: 'the key has expired; create a new one instead' }]);
  }
}

/**
 * A rotation's dates: the replacement gets the old key's lifetime from now (none if it had none); the
 * old key works until the grace period ends, or until it would have expired anyway if that is sooner.
 */
export function rotationDates(
  previous: { createdAt: Date; expiresAt: Date | null },
  now: number,
  graceHours: number,
): { replacementExpiresAt: Date | null; previousExpiresAt: Date } {
  const lifetime = previous.expiresAt === null ? null : previous.expiresAt.getTime() - previous.createdAt.getTime();
  const graceEnd = new Date(now + graceHours * HOUR);
  return {
    replacementExpiresAt: lifetime === null ? null : new Date(now + lifetime),
    previousExpiresAt: previous.expiresAt === null || previous.expiresAt > graceEnd ? graceEnd : previous.expiresAt,
  };
}

/** Revoking a revoked key changes nothing (its first revocation time stays). */
export function needsRevocation(key: { revokedAt: Date | null }): boolean {
  return key.revokedAt === null;
}

/**
 * D19: a key made in the dashboard can do no more than its creator holds now (its scopes ∩ the
 * creator's role's permissions); a removed creator leaves it nothing. A key made with the CLI
 * (no creator) has exactly its scopes. `creator` is undefined for a CLI key, null for a removed one.
 */
export function effectivePermissions(scopes: readonly string[], creator: { role: string } | null | undefined): string[] {
  if (creator === undefined) return [...scopes];
  const held: readonly string[] = creator === null ? [] : permissionsOfRole(creator.role);
  return scopes.filter((permission) => held.includes(permission));
}

export type KeyStatus = 'ACTIVE' | 'EXPIRED' | 'REVOKED';

export function keyStatus(key: { revokedAt: Date | null; expiresAt: Date | null }, now: number): KeyStatus {
  if (key.revokedAt !== null) return 'REVOKED';
  return key.expiresAt !== null && key.expiresAt.getTime() <= now ? 'EXPIRED' : 'ACTIVE';
}
