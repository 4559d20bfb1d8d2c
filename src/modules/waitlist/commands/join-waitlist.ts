import { AppError } from '../../../foundation/errors/app-error';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { seatsRequestErrors } from '../../booking/booking.inputs';
import { assertBookable } from '../../event/event.policy';
import { effectiveStatus, type EventStatus } from '../../event/event-status';
import { newWaitlistEntryId } from '../waitlist-entry.entity';
import { assertSoldOutFor } from '../waitlist.policy';
import { entryById } from '../waitlist.read-repository';
import { insertEntry, lockEventForWaitlist, readLockedEvent } from '../waitlist.repository';
import type { JoinWaitlistInput, WaitlistEntry } from '../waitlist.types';

/**
 * Mutation.joinWaitlist (D21): a WAITING entry at the end of the event's waiting list, only while the
 * seats asked for are not free (else SEATS_AVAILABLE: book them). The input's rules are
 * createBooking's (one input class for both), refused in the same order: VALIDATION_ERROR,
 * EVENT_NOT_FOUND, EVENT_NOT_PUBLISHED, TICKET_TYPE_NOT_FOUND, then SEATS_AVAILABLE.
 *
 * Under the event's locks (its row, every slot of a slotted event), as an offer pass: a change that
 * frees seats either committed before (the join sees the seats free and refuses) or runs after (and
 * its offer pass sees this entry). Seats of holds past their expiresAt count as free (D20).
 */
export async function joinWaitlist(scope: UnitOfWorkScope, organizationId: string, input: JoinWaitlistInput): Promise<WaitlistEntry> {
  assertValidInput(seatsRequestErrors(input), input);
  const id = newWaitlistEntryId();
  return inUnitOfWork(scope, async (tx) => {
    const now = new Date();
    const locked = await lockEventForWaitlist(tx, organizationId, { slug: input.eventSlug });
    if (!locked) throw AppError.eventNotFound(input.eventSlug);
    const event = (await readLockedEvent(tx, locked.id, now))!;
    assertBookable({ slug: event.slug, status: effectiveStatus(event.status as EventStatus, event.endDate, now) });
    const ticketTypeId = input.ticketTypeId ?? null;
    const ticketType = ticketTypeId === null ? null : event.ticketTypes.find((type) => type.id === ticketTypeId);
    if (ticketType === undefined) throw AppError.ticketTypeNotFound(ticketTypeId!);
    assertSoldOutFor(
      {
        event: event.room === null ? null : event.room + event.lapsed,
        ticketType: ticketType === null ? null : { id: ticketType.id, free: ticketType.room + ticketType.lapsed },
      },
      input.quantity,
    );
    await insertEntry(tx, {
      id,
      organizationId,
      eventId: event.id,
      ticketTypeId,
      quantity: input.quantity,
      attendeeEmail: input.attendeeEmail,
      attendeeName: input.attendeeName.trim(),
      createdAt: now,
    });
    return (await entryById(tx, organizationId, id, now))!;
  });
}
