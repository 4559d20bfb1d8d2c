import type { FieldError } from '../../foundation/errors/app-error';
import { isIanaTimeZone } from '../../foundation/validation/rules';
import { OrganizationPlan, RestrictionMode } from './organization.entity';
import { MAX_HOLD_MINUTES, MAX_TRANSFER_LOCK_MINUTES } from './hold-settings';

/*
 * Every rule of an organization's settings (docs/decisions/ D11, D12, D14, D20, D21), as pure functions:
 * no database. The create and update commands call them; the CLI calls the same ones for its options.
 */

/** The same bound as RATE_LIMIT_PER_MINUTE (and well inside the integer column). */
export const MAX_RATE_LIMIT_PER_MINUTE = 10_000_000;

export function organizationNameErrors(name: string): FieldError[] {
  return name === '' || name.length > 200 ? [{ field: 'name', message: 'name must be 1 to 200 characters' }] : [];
}

/** An IANA time zone name, the default of the organization's events (absent: unchanged or UTC). */
export function timezoneErrors(timezone: string | undefined): FieldError[] {
  return timezone !== undefined && !isIanaTimeZone(timezone)
    ? [{ field: 'timezone', message: 'timezone must be an IANA time zone name such as Europe/Paris' }]
    : [];
}

export function isRateLimit(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= MAX_RATE_LIMIT_PER_MINUTE;
}

/** D12: a per-organization budget is a whole number of requests a minute; null means the server default. */
export function rateLimitErrors(rateLimitPerMinute: number | null | undefined): FieldError[] {
  return rateLimitPerMinute != null && !isRateLimit(rateLimitPerMinute)
    ? [{ field: 'rateLimitPerMinute', message: `rate limit must be a whole number from 1 to ${MAX_RATE_LIMIT_PER_MINUTE}` }]
    : [];
}

/** The dashboard sends the restriction mode as text: STRICT or OFF. */
export function parseRestrictionMode(value: string): RestrictionMode | undefined {
  return Object.values(RestrictionMode).find((mode) => String(mode) === value);
}

export function restrictionModeErrors(value: string | undefined): FieldError[] {
  return value !== undefined && parseRestrictionMode(value) === undefined
    ? [{ field: 'restrictionMode', message: 'restrictionMode must be STRICT or OFF' }]
    : [];
}

/**
 * D11, checked on the settings as they would be after a change (requested values over stored ones):
 * only ENTERPRISE organizations may have allowed IPs or STRICT mode, and STRICT needs at least one entry.
 */
export function accessSettingsErrors(settings: { plan: OrganizationPlan; allowedIps: readonly string[]; restrictionMode: RestrictionMode }): FieldError[] {
  const errors: FieldError[] = [];
  if (settings.plan !== OrganizationPlan.ENTERPRISE) {
    if (settings.restrictionMode === RestrictionMode.STRICT) {
      errors.push({ field: 'restrictionMode', message: 'only ENTERPRISE organizations can use STRICT (set --plan enterprise)' });
    }
    if (settings.allowedIps.length > 0) {
      errors.push({ field: 'allowedIPs', message: 'only ENTERPRISE organizations can have allowed IPs (set --plan enterprise, or clear them with --allowed-ips "")' });
    }
  }
  if (settings.restrictionMode === RestrictionMode.STRICT && settings.allowedIps.length === 0) {
    errors.push({ field: 'allowedIPs', message: 'STRICT needs at least one allowed address or range' });
  }
  return errors;
}

/**
 * D20/D21: how long a hold (`holdMinutes`) and a waiting-list offer (`waitlistOfferMinutes`) last, a
 * whole number of minutes from 1 to 1440 (a day); D29: how long before an event's start transfers stop
 * (`transferLockMinutes`), from 0 to 10,080 (a week). Absent means unchanged. Each failing field is listed.
 */
export function bookingWindowErrors(settings: { holdMinutes?: unknown; waitlistOfferMinutes?: unknown; transferLockMinutes?: unknown }): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of ['holdMinutes', 'waitlistOfferMinutes'] as const) {
    const value = settings[field];
    if (value !== undefined && !isWindowMinutes(value)) {
      errors.push({ field, message: `${field} must be a whole number of minutes from 1 to ${MAX_HOLD_MINUTES}` });
    }
  }
  if (settings.transferLockMinutes !== undefined && !isTransferLockMinutes(settings.transferLockMinutes)) {
    errors.push({ field: 'transferLockMinutes', message: `transferLockMinutes must be a whole number of minutes from 0 to ${MAX_TRANSFER_LOCK_MINUTES}` });
  }
  return errors;
}

export function isTransferLockMinutes(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_TRANSFER_LOCK_MINUTES;
}

export function isWindowMinutes(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_HOLD_MINUTES;
}
