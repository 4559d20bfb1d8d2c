import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../../foundation/errors/app-error';
import { assertBookable } from '../../event/event.policy';
import { effectiveStatus, type EventStatus } from '../../event/event-status';
import type { BookingEntity } from '../booking.entity';
import { assertAvailable } from '../booking.policy';
import type { BookingRequest } from '../booking-statement';
import { bookEvent } from '../booking.repository';
import { withinTransaction } from '../../../platform/db/unit-of-work';
import { roomiestSlot, roomOf } from '../../inventory/inventory.policy';
import { gatherRoom, lockEventSlots, lockTicketTypeSlots, takenOf } from '../../inventory/inventory.repository';
import { queueRefusal } from '../../queue/queue-gate';

/*
 * The slow path of a booking of a slotted event (createBooking, and the waiting list's offers, D21):
 * a file of its own so that both reach it without an import cycle.
 */

interface SlottedEventRow {
  id: string;
  status: EventStatus;
  end_date: string;
  capacity: number | null;
  registration_count: number;
  tt_id: string | null;
  tt_quantity: number | null;
  tt_sold: number | null;
}

/**
 * A slotted event whose slots could not take a booking one by one (none alone has room enough, or
 * they are closed): under the locks of every slot of the event and of the ticket type, either the
 * reason for the refusal, from the whole count, or the room gathered into one slot (inventory.policy.ts
 * gatherInto) and the booking made there. Rare: at the end of a sell-out, or for a large booking.
 */
export async function bookSlottedSlowly(em: EntityManager, request: BookingRequest): Promise<BookingEntity> {
  const { organizationId, fields } = request;
  const run = async (tx: EntityManager): Promise<BookingEntity> => {
    const read = () =>
      tx.execute<SlottedEventRow[]>(
        // Seats in use on the rows: confirmed and held (a slot's taken counts both).
        `select e.id, e.status, e.end_date, e.capacity, e.registration_count + e.held_count as registration_count,
                t.id as tt_id, t.quantity as tt_quantity, t.sold + t.held as tt_sold
           from events e left join ticket_types t on t.event_id = e.id and t.id = ?
          where e.organization_id = ? and e.slug = ?`,
        [fields.ticketTypeId, organizationId, fields.eventSlug],
      );
    const [found] = await read();
    if (!found) throw AppError.eventNotFound(fields.eventSlug);
    const eventSlots = await lockEventSlots(tx, found.id);
    const ticketTypeSlots = found.tt_id ? await lockTicketTypeSlots(tx, found.tt_id) : null;
    // Read again under the slots' locks: a status or quantity change that held them has committed.
    const [event] = await read();
    const status = effectiveStatus(event.status, new Date(event.end_date));
    assertBookable({ slug: fields.eventSlug, status });
    if (fields.ticketTypeId !== null && !event.tt_id) throw AppError.ticketTypeNotFound(fields.ticketTypeId);
    const ticketType =
      event.tt_id && ticketTypeSlots
        ? { id: event.tt_id, quantity: event.tt_quantity!, sold: event.tt_sold! + takenOf(ticketTypeSlots) }
        : null;
    assertAvailable({ capacity: event.capacity, registrationCount: event.registration_count + takenOf(eventSlots.slots) }, ticketType, fields.quantity);

    // There is room, spread over several slots: gather it into the slot with the most.
    const pool = ticketTypeSlots ?? eventSlots.slots;
    const target = roomiestSlot(pool);
    if (roomOf(pool) !== null || roomOf(eventSlots.slots) !== null) {
      await gatherRoom(tx, { id: found.id, slots: eventSlots.slots }, ticketTypeSlots && event.tt_id ? { id: event.tt_id, slots: ticketTypeSlots } : null, target, fields.quantity);
    }
    const change = await bookEvent(tx, request, target);
    // D30: the admission presented was used (or lapsed) since the first statement read it.
    if (!change.changed && change.queue) return queueRefusal(tx, request, change.queue);
    if (!change.changed || !change.booking) throw new Error(`booking ${fields.id} found no slot after its room was gathered`);
    return change.booking;
  };
  return withinTransaction(em, run);
}
