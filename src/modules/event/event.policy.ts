import { AppError, type FieldError } from '../../errors/app-error';
import { EventStatus } from './event-status';

/** The status changes D3 allows, from the status a client sees. */
export function isAllowedTransition(from: EventStatus, to: EventStatus): boolean {
  if (from === to) return true;
  if (to === EventStatus.CANCELLED || to === EventStatus.DRAFT) return true;
  return from === EventStatus.DRAFT && to === EventStatus.PUBLISHED;
}

export const SETTABLE_STATUSES: readonly EventStatus[] = [EventStatus.DRAFT, EventStatus.PUBLISHED, EventStatus.CANCELLED];

/** Problems with a requested status change (VALIDATION_ERROR on field `status`), if any. */
export function statusChangeErrors(from: EventStatus, to: EventStatus): FieldError[] {
  if (!SETTABLE_STATUSES.includes(to)) {
    return [{ field: 'status', message: `status must be one of ${SETTABLE_STATUSES.join(', ')}` }];
  }
  if (!isAllowedTransition(from, to)) {
    return [{ field: 'status', message: `an event cannot move from ${from} to ${to}` }];
  }
  return [];
}

/** Once published (or completed), slug and startDate are fixed: 409 naming what a request tried to change. */
export function assertMutableFields(
  current: { status: EventStatus; slug: string; startDate: Date },
  requested: { slug?: string | null; startDate?: Date | null },
): void {
  if (current.status !== EventStatus.PUBLISHED && current.status !== EventStatus.COMPLETED) return;
  const immutableFields: string[] = [];
  if (requested.slug != null && requested.slug !== current.slug) immutableFields.push('slug');
  if (requested.startDate != null && requested.startDate.getTime() !== current.startDate.getTime()) {
    immutableFields.push('startDate');
  }
  if (immutableFields.length > 0) {
    throw new AppError(
      'EVENT_ALREADY_PUBLISHED',
      `The event is ${current.status.toLowerCase()}: ${immutableFields.join(' and ')} can no longer change`,
      { immutableFields },
    );
  }
}
