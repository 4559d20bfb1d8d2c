/**
 * The audited actions (D26) as the audit log page offers them in its filter, with a readable name.
 * The same list as the service's (src/platform/audit/audit-log.ts AUDIT_ACTIONS; a test compares them).
 */
export const AUDIT_ACTION_NAMES: ReadonlyArray<readonly [action: string, name: string]> = [
  ['api_key.created', 'Key created'],
  ['api_key.rotated', 'Key rotated'],
  ['api_key.revoked', 'Key revoked'],
  ['member.added', 'Member added'],
  ['member.invited', 'Member invited'],
  ['member.role_changed', 'Member role changed'],
  ['member.removed', 'Member removed'],
  ['organization.settings_changed', 'Settings changed'],
  ['organization.allowlist_changed', 'IP allowlist changed'],
  ['webhook_endpoint.created', 'Webhook endpoint created'],
  ['webhook_endpoint.updated', 'Webhook endpoint changed'],
  ['webhook_endpoint.deleted', 'Webhook endpoint deleted'],
  ['webhook_endpoint.secret_rotated', 'Webhook secret rotated'],
  ['event.published', 'Event published'],
  ['event.cancelled', 'Event cancelled'],
  ['event.deleted', 'Event deleted'],
  ['booking.transferred', 'Booking transferred'],
  ['booking.exchanged', 'Booking exchanged'],
  ['series.created', 'Series created'],
  ['series.updated', 'Series changed'],
  ['series.deleted', 'Series deleted'],
];
