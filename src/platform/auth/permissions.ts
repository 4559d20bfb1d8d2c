/**
 * Every permission a key can hold (D2, D18; D22 adds checkin:write, the door's scanners; organization:write
 * changes the booking windows of D20/D21; D26 adds audit:read, see docs/decisions/). Creating a key with
 * any other name fails.
 */
export const PERMISSIONS = [
  'events:read',
  'events:write',
  'bookings:read',
  'bookings:write',
  'members:read',
  'webhooks:read',
  'webhooks:write',
  'checkin:write',
  'organization:write',
  'audit:read',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/**
 * `:read` permissions a MEMBER does not hold (D26): the audit log shows what every member and key did,
 * with client addresses; only admins read it.
 */
const ADMIN_ONLY_READS: readonly Permission[] = ['audit:read'];

/**
 * What a member holds by role (D19): an ADMIN every permission, a MEMBER the `:read` ones except
 * audit:read (D26). A key made in the dashboard is limited to what its creator holds now.
 */
export function permissionsOfRole(role: string): Permission[] {
  if (role === 'ADMIN') return [...PERMISSIONS];
  if (role === 'MEMBER') return PERMISSIONS.filter((permission) => permission.endsWith(':read') && !ADMIN_ONLY_READS.includes(permission));
  return [];
}
