import type { AuditChange, AuditSummary, AuditValue } from '../../platform/audit/audit-log';
import type { OrganizationEntity } from './organization.entity';

/*
 * The audit entries of a settings change (D26): the fields that changed, each with its old and new
 * value. The access settings (the IP allowlist and its restriction mode) are their own action,
 * organization.allowlist_changed; the others are organization.settings_changed. A change of both kinds
 * writes one entry of each; a change that changes nothing writes none.
 */

const ACCESS_FIELDS = ['allowedIps', 'restrictionMode'] as const;
const OTHER_FIELDS = ['timezone', 'plan', 'rateLimitPerMinute', 'holdMinutes', 'waitlistOfferMinutes', 'transferLockMinutes'] as const;

type AuditedField = (typeof ACCESS_FIELDS)[number] | (typeof OTHER_FIELDS)[number];
export type AuditedSettings = Record<AuditedField, AuditValue>;

/** The audited settings of an organization, as plain values. */
export function auditedSettings(organization: OrganizationEntity): AuditedSettings {
  return {
    allowedIps: [...organization.allowedIps],
    restrictionMode: organization.restrictionMode,
    timezone: organization.timezone,
    plan: organization.plan,
    rateLimitPerMinute: organization.rateLimitPerMinute ?? null,
    holdMinutes: organization.holdMinutes ?? null,
    waitlistOfferMinutes: organization.waitlistOfferMinutes ?? null,
    transferLockMinutes: organization.transferLockMinutes ?? null,
  };
}

/** The entries for the move from `before` to `after`: `{ field: { from, to } }` of the fields that changed. */
export function settingsChanges(organizationId: string, before: AuditedSettings, after: AuditedSettings): AuditChange[] {
  const changed = (fields: readonly AuditedField[]): AuditSummary | undefined => {
    const summary: AuditSummary = {};
    for (const field of fields) {
      if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) summary[field] = { from: before[field], to: after[field] };
    }
    return Object.keys(summary).length > 0 ? summary : undefined;
  };
  const entries: AuditChange[] = [];
  const access = changed(ACCESS_FIELDS);
  if (access) entries.push({ organizationId, action: 'organization.allowlist_changed', targetId: organizationId, summary: access });
  const others = changed(OTHER_FIELDS);
  if (others) entries.push({ organizationId, action: 'organization.settings_changed', targetId: organizationId, summary: others });
  return entries;
}
