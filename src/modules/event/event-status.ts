import { registerEnumType } from 'type-graphql';

export enum EventStatus {
  DRAFT = 'DRAFT',
  PUBLISHED = 'PUBLISHED',
  CANCELLED = 'CANCELLED',
  COMPLETED = 'COMPLETED',
}

registerEnumType(EventStatus, {
  name: 'EventStatus',
  description: 'DRAFT on create; a PUBLISHED event whose endDate has passed reads as COMPLETED.',
});

/** The status a client sees: COMPLETED is derived from the end date, never stored (D3). */
export function effectiveStatus(stored: EventStatus, endDate: Date, now: Date = new Date()): EventStatus {
  return stored === EventStatus.PUBLISHED && endDate.getTime() <= now.getTime() ? EventStatus.COMPLETED : stored;
}
