import type { FieldError } from '../../foundation/errors/app-error';
import { SLUG_PATTERN } from '../../foundation/validation/rules';
import { MAX_SERIES_SLUG_LENGTH } from './series-slugs';
import { parseLocalDateTime, instantOf, isKnownZone, type Floating } from './series-time';
import { SeriesErrors } from '../../foundation/errors/series-errors';

/*
 * Every state rule of a series (D28), as pure functions of the loaded state: no database, no clock
 * unless given. The rule's own limits are series-expansion.ts's; which occurrences a change touches
 * is the planner's (series-planner.ts).
 */

export const MAX_DURATION_MINUTES = 10_080;

/**
 * firstStart: a local date-time that exists on the calendar and, on create (`mustBeFuture`), names an
 * instant in the future in `timeZone` (when that zone is valid; else only the calendar is checked).
 */
export function firstStartErrors(firstStart: string, timeZone: string | undefined, now: Date, mustBeFuture: boolean): { local?: Floating; errors: FieldError[] } {
  const local = parseLocalDateTime(firstStart);
  if (local === undefined) return { errors: [{ field: 'firstStart', message: 'firstStart must be a local date-time without offset that exists, e.g. 2027-03-01T18:00' }] };
  if (mustBeFuture && timeZone !== undefined && isKnownZone(timeZone) && instantOf(local, timeZone) <= now.getTime()) {
    return { local, errors: [{ field: 'firstStart', message: `firstStart must be in the future (in ${timeZone})` }] };
  }
  return { local, errors: [] };
}

/** A series slug that another series of the organization has (D28: 400 on `slug`). */
export function seriesSlugTakenError(slug: string, field = 'slug'): FieldError {
  return { field, message: `${field} "${slug}" is already used by another series of this organization` };
}

/** An occurrence slug that another event of the organization has. */
export function occurrenceSlugTakenError(slugs: readonly string[]): FieldError {
  const shown = slugs.slice(0, 5).map((slug) => `"${slug}"`).join(', ');
  return {
    field: 'slug',
    message: `the occurrence slug${slugs.length === 1 ? '' : 's'} ${shown}${slugs.length > 5 ? ', …' : ''} ${slugs.length === 1 ? 'is' : 'are'} used by another event of this organization`,
  };
}

/** What FOLLOWING asks for: the occurrence it starts at and the new series' slug, free and well formed. */
export function scopeErrors(scope: 'ALL' | 'FOLLOWING', from: string | null | undefined, newSlug: string | null | undefined, slug: string): FieldError[] {
  if (scope !== 'FOLLOWING') return [];
  const errors: FieldError[] = [];
  if (from == null || from === '') errors.push({ field: 'from', message: "FOLLOWING needs from: the slug of the occurrence the new series starts at" });
  if (newSlug == null || newSlug === '') errors.push({ field: 'newSlug', message: 'FOLLOWING needs newSlug: the slug of the new series' });
  else if (!SLUG_PATTERN.test(newSlug) || [...newSlug].length > MAX_SERIES_SLUG_LENGTH) {
    errors.push({ field: 'newSlug', message: `newSlug must be lower-case letters and digits joined by single hyphens, at most ${MAX_SERIES_SLUG_LENGTH} characters` });
  } else if (newSlug === slug) errors.push(seriesSlugTakenError(newSlug, 'newSlug'));
  return errors;
}

/** `from` must name an occurrence of the series. */
export function fromErrors(found: boolean): FieldError[] {
  return found ? [] : [{ field: 'from', message: 'from must be the slug of an occurrence of this series' }];
}

/** D28: the change was previewed against `expected`; anything since makes the plan another one. */
export function assertVersion(expected: number, version: number): void {
  if (expected !== version) throw SeriesErrors.seriesChanged(expected, version);
}

/** D28: a series is deleted only while none of its occurrences has bookings ("has bookings" as deleting an event, D3). */
export function assertSeriesDeletable(bookedOccurrences: number): void {
  if (bookedOccurrences > 0) throw SeriesErrors.seriesHasBookings(bookedOccurrences);
}
