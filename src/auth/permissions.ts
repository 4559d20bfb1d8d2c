/** Every permission a key can hold (D2). Creating a key with any other name fails. */
export const PERMISSIONS = ['events:read', 'events:write', 'bookings:read', 'bookings:write', 'members:read', 'webhooks:read', 'webhooks:write'] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}
