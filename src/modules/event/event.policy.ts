import { AppError, type FieldError } from '../../foundation/errors/app-error';
import { EventStatus } from './event-status';

/*
 * Every state rule of an event (docs/decisions/ D3, D4), as pure functions of the loaded state:
 * no database, no clock unless given. Commands call them between loading and applying.
 */

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
    return [{ field: 'status', message: `status cannot move from ${from} to ${to}` }];
  }
  return [];
}

/** D3: once published (or completed), slug and startDate are fixed: 409 naming what a request tried to change. */
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
  if (immutableFields.length > 0) throw AppError.eventAlreadyPublished(current.status, immutableFields);
}

/**
 * D4, for create and update alike: a start that is set (or moved) must be in the future, and the end
 * must follow the start, each taken from the request or else from the stored event. `stored` is
 * absent on create. A start in the past that is sent unchanged is no change, so it is accepted.
 */
export function scheduleErrors(
  requested: { startDate?: Date | null; endDate?: Date | null },
  stored: { startDate: Date; endDate: Date } | undefined,
  now: Date,
): FieldError[] {
  const errors: FieldError[] = [];
  const start = requested.startDate ?? stored?.startDate;
  const end = requested.endDate ?? stored?.endDate;
  const startMoved = requested.startDate != null && requested.startDate.getTime() !== stored?.startDate.getTime();
  if (startMoved && requested.startDate!.getTime() <= now.getTime()) {
    errors.push({ field: 'startDate', message: 'startDate must be in the future' });
  }
  const datesGiven = requested.startDate != null || requested.endDate != null;
  if (datesGiven && start && end && end.getTime() <= start.getTime()) {
    errors.push({ field: 'endDate', message: 'endDate must be after startDate' });
  }
  return errors;
}

/** D4: capacity never below the seats already confirmed. */
export function capacityErrors(capacity: number | null | undefined, registrationCount: number): FieldError[] {
  return capacity != null && capacity < registrationCount
    ? [{ field: 'capacity', message: `capacity cannot be below the ${registrationCount} registrations already made` }]
    : [];
}

/** D1: a slug is unique within the organization. */
export function duplicateSlugError(slug: string): FieldError {
  return { field: 'slug', message: `slug "${slug}" is already used by another event of this organization` };
}

/** D3: an event with confirmed bookings cannot be deleted (cancel it instead). */
export function assertDeletable(confirmedBookings: number): void {
  if (confirmedBookings > 0) throw AppError.eventHasBookings(confirmedBookings);
}

/** D7: only a PUBLISHED event (as clients see it: not COMPLETED) takes bookings. */
export function assertBookable(event: { slug: string; status: EventStatus }): void {
  if (event.status !== EventStatus.PUBLISHED) throw AppError.eventNotPublished(event.slug, event.status);
}
