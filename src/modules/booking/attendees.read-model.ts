import type { EntityManager } from '@mikro-orm/postgresql';
import { slugErrors } from '../../foundation/validation/arguments';
import { assertValidInput } from '../../foundation/validation/validate-input';
import type { PreparedStatements } from '../../platform/db/prepared-statements';
import { idBySlug } from '../event/event.read-repository';
import { attendeeBatches, type AttendeeRow } from './attendees.repository';

/**
 * The attendee list of the organization's event `eventSlug` (D23, attendees.csv): its CONFIRMED
 * bookings as batches. A malformed slug is VALIDATION_ERROR on `field`, another organization's event
 * EVENT_NOT_FOUND (D1), both before any row is read (as Query.bookings decides them).
 */
export async function attendeesOf(
  em: EntityManager,
  reads: PreparedStatements,
  organizationId: string,
  eventSlug: string,
  field = 'eventSlug',
): Promise<AsyncGenerator<AttendeeRow[], void, undefined>> {
  assertValidInput(slugErrors(field, eventSlug));
  const eventId = await idBySlug(em, organizationId, eventSlug);
  return attendeeBatches(reads, organizationId, eventId);
}
