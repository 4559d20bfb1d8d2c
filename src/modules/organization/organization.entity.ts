import { Entity, Enum, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../foundation/ids';
import { DEFAULT_HOLD_MINUTES, DEFAULT_TRANSFER_LOCK_MINUTES, DEFAULT_WAITLIST_OFFER_MINUTES } from './hold-settings';

export { MAX_HOLD_MINUTES, MAX_TRANSFER_LOCK_MINUTES } from './hold-settings';

export enum OrganizationPlan {
  STANDARD = 'STANDARD',
  ENTERPRISE = 'ENTERPRISE',
}

export enum RestrictionMode {
  OFF = 'OFF',
  STRICT = 'STRICT',
}

@Entity({ tableName: 'organizations' })
export class OrganizationEntity {
  [OptionalProps]?: 'id' | 'timezone' | 'plan' | 'allowedIps' | 'restrictionMode' | 'rateLimitPerMinute' | 'holdMinutes' | 'waitlistOfferMinutes' | 'transferLockMinutes' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('org');

  @Property({ type: 'text' })
  name!: string;

  /** IANA name; the default timezone of this organization's events. */
  @Property({ type: 'text' })
  timezone: string = 'UTC';

  @Enum({ items: () => OrganizationPlan })
  plan: OrganizationPlan = OrganizationPlan.STANDARD;

  @Property({ type: 'text[]', fieldName: 'allowed_ips' })
  allowedIps: string[] = [];

  @Enum({ items: () => RestrictionMode })
  restrictionMode: RestrictionMode = RestrictionMode.OFF;

  /** Requests a minute shared by all keys; null means the server default (RATE_LIMIT_PER_MINUTE). */
  @Property({ type: 'integer', nullable: true })
  rateLimitPerMinute: number | null = null;

  /** How long a hold lasts when its booking does not say (D20), 1 to 1440 minutes. */
  @Property({ type: 'integer' })
  holdMinutes: number = DEFAULT_HOLD_MINUTES;

  /** How long a waiting-list offer is held for its entry (D21), 1 to 1440 minutes. */
  @Property({ type: 'integer' })
  waitlistOfferMinutes: number = DEFAULT_WAITLIST_OFFER_MINUTES;

  /** How long before an event's start its bookings stop changing hands (D29), 0 to 10,080 minutes. */
  @Property({ type: 'integer' })
  transferLockMinutes: number = DEFAULT_TRANSFER_LOCK_MINUTES;

  @Property({ type: 'timestamptz', length: 3 })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', length: 3, onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
