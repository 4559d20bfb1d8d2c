import { canonicalTimeZone } from '../../event/event.queries';
import type { OrganizationEntity, OrganizationPlan, RestrictionMode } from '../organization.entity';
import { normalizeAllowlist } from '../ip-allowlist';
import { accessSettingsErrors, bookingWindowErrors, parseRestrictionMode, rateLimitErrors, restrictionModeErrors, timezoneErrors } from '../organization.policy';
import { lockOrganization } from '../organization.repository';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { recordAudit } from '../../../platform/audit/audit-log';
import { auditedSettings, settingsChanges } from '../organization.audit';

/** Fields that may change; absent means unchanged, rateLimitPerMinute null means the server default. */
export interface UpdateOrganizationInput {
  timezone?: string;
  plan?: OrganizationPlan;
  rateLimitPerMinute?: number | null;
  allowedIps?: readonly string[];
  /** STRICT or OFF (the dashboard sends text; the CLI has parsed it already). */
  restrictionMode?: RestrictionMode | string;
  /** Minutes a hold lasts by default (D20), 1 to 1440. */
  holdMinutes?: number;
  /** Minutes a waiting-list offer is held (D21), 1 to 1440. */
  waitlistOfferMinutes?: number;
  /** Minutes before an event's start when its bookings stop changing hands (D29), 0 to 10,080. */
  transferLockMinutes?: number;
}

/**
 * `org update`, Mutation.updateOrganizationSettings (D11, D12) and Mutation.updateOrganization (the
 * booking windows of D20, D21, D29): every field checked at once, the
 * organization locked, the settings checked as a whole (only ENTERPRISE may have an allowlist or
 * STRICT mode), then applied. Running servers drop what they cached within a second (the database
 * trigger on organizations, src/platform/auth/auth-change-listener.ts).
 */
export async function updateOrganization(scope: UnitOfWorkScope, organizationId: string, input: UpdateOrganizationInput): Promise<OrganizationEntity> {
  const allowlist = input.allowedIps === undefined ? undefined : normalizeAllowlist(input.allowedIps);
  assertValidInput(
    timezoneErrors(input.timezone),
    rateLimitErrors(input.rateLimitPerMinute),
    allowlist?.errors ?? [],
    restrictionModeErrors(input.restrictionMode),
    bookingWindowErrors(input),
  );

  return inUnitOfWork(scope, async (tx, unit) => {
    const organization = await lockOrganization(tx, organizationId);
    const before = auditedSettings(organization);
    const plan = input.plan ?? organization.plan;
    const allowedIps = allowlist?.list ?? organization.allowedIps;
    const restrictionMode = (input.restrictionMode === undefined ? undefined : parseRestrictionMode(input.restrictionMode)) ?? organization.restrictionMode;
    // A second pass, on the locked row: the settings as a whole, with the stored values the input leaves.
    assertValidInput(accessSettingsErrors({ plan, allowedIps, restrictionMode }));

    organization.plan = plan;
    organization.allowedIps = [...allowedIps];
    organization.restrictionMode = restrictionMode;
    if (input.timezone !== undefined) organization.timezone = canonicalTimeZone(input.timezone);
    if (input.rateLimitPerMinute !== undefined) organization.rateLimitPerMinute = input.rateLimitPerMinute;
    if (input.holdMinutes !== undefined) organization.holdMinutes = input.holdMinutes;
    if (input.waitlistOfferMinutes !== undefined) organization.waitlistOfferMinutes = input.waitlistOfferMinutes;
    if (input.transferLockMinutes !== undefined) organization.transferLockMinutes = input.transferLockMinutes;
    for (const change of settingsChanges(organizationId, before, auditedSettings(organization))) await recordAudit(tx, unit, change);
    await tx.flush();
    return organization;
  });
}
