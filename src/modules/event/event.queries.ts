import type { FilterQuery } from '@mikro-orm/core';
import type { EventEntity } from './event.entity';
import { EventStatus } from './event-status';

/** The stored-row condition for a status as clients see it (COMPLETED is derived from endDate). */
export function statusFilter(status: EventStatus | undefined, now: Date): FilterQuery<EventEntity> {
  switch (status) {
    case undefined:
      return {};
    case EventStatus.PUBLISHED:
      return { storedStatus: EventStatus.PUBLISHED, endDate: { $gt: now } };
    case EventStatus.COMPLETED:
      return {
        $or: [{ storedStatus: EventStatus.COMPLETED }, { storedStatus: EventStatus.PUBLISHED, endDate: { $lte: now } }],
      };
    default:
      return { storedStatus: status };
  }
}

/** The runtime's canonical spelling of a time zone the validator accepted (`utc` → `UTC`). */
export function canonicalTimeZone(timeZone: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
}
