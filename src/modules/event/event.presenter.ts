import type { TicketTypeEntity } from '../ticket-type/ticket-type.entity';
import type { EventEntity } from './event.entity';
import { effectiveStatus } from './event-status';
import type { EventView, TicketTypeView } from './event.read-repository';
import type { EventCounts } from './event-rows';
import { presentQueueSettings, type QueueSettingsBody, type QueueSettingsLike } from '../queue/queue.presenter';

/** The series an event is an occurrence of (D28), as Event.series shows it. */
export interface EventSeriesRef {
  id: string;
  slug: string;
}

/** An event as `GET /v1/events/{slug}` returns it: every field of the spec, the counts of D20, its series (D28) and its queue's settings (D30), ticket types included. */
export type EventBody = Omit<EventView, 'ticketTypes' | 'seriesId' | 'queue'> & {
  series: EventSeriesRef | null;
  ticketTypes: TicketTypeView[];
  queue: QueueSettingsBody | null;
};

/** What presentEvent reads of an event: its entity, or the row a command is about to write. */
export type EventFields = Pick<
  EventEntity,
  | 'id'
  | 'slug'
  | 'title'
  | 'description'
  | 'startDate'
  | 'endDate'
  | 'timezone'
  | 'venue'
  | 'venueAddress'
  | 'coverImage'
  | 'storedStatus'
  | 'capacity'
  | 'registrationCount'
  | 'createdAt'
  | 'updatedAt'
> & { readonly organization: { readonly id: string }; readonly series?: EventSeriesRef | null; readonly queue?: QueueSettingsLike | null };

/** What presentTicketType reads of a ticket type: its fields and the tickets held now (D20). */
export type TicketTypeFields = Pick<TicketTypeEntity, 'id' | 'name' | 'price' | 'currency' | 'quantity' | 'sold'> & { readonly held: number };

/**
 * The event as the API shows it (`GET /v1/events/{slug}`, GraphQL's FullEvent), from the rows a command
 * already holds: no request, no query. Pure. The fields in the order the REST body has them; dates as
 * ISO 8601 UTC with milliseconds (D5); `status` as clients see it (COMPLETED derived from the end, D3);
 * the counts of both doors (D20: heldCount, checkedInCount, each ticket type's held); `ticketTypes` in
 * the order given (the reads' order: creation, then id); `series` (D28) null for an event of no series; the queue's settings (D30).
 */
export function presentEvent(event: EventFields, ticketTypes: readonly TicketTypeFields[], counts: EventCounts, now: Date = new Date()): EventBody {
  return {
    id: event.id,
    slug: event.slug,
    title: event.title,
    description: event.description,
    startDate: event.startDate.toISOString(),
    endDate: event.endDate.toISOString(),
    timezone: event.timezone,
    venue: event.venue,
    venueAddress: event.venueAddress,
    coverImage: event.coverImage,
    status: effectiveStatus(event.storedStatus, event.endDate, now),
    capacity: event.capacity,
    registrationCount: event.registrationCount,
    heldCount: counts.heldCount,
    checkedInCount: counts.checkedInCount,
    organizationId: event.organization.id,
    createdAt: event.createdAt.toISOString(),
    updatedAt: event.updatedAt.toISOString(),
    series: event.series ?? null,
    ticketTypes: ticketTypes.map(presentTicketType),
    // D30: the on-sale queue's settings, after the ticket types (as REST selects it).
    queue: presentQueueSettings(event.queue ?? null),
  };
}

/** A ticket type as it appears in an event's `ticketTypes` (D6): price a JSON number. */
export function presentTicketType(ticketType: TicketTypeFields): TicketTypeView {
  return {
    id: ticketType.id,
    name: ticketType.name,
    price: ticketType.price,
    currency: ticketType.currency,
    quantity: ticketType.quantity,
    sold: ticketType.sold,
    held: ticketType.held,
  };
}

/** What a delete answers (`deleteEvent`) and `event.deleted` carries: the id and the slug. */
export function presentDeletedEvent(event: Pick<EventEntity, 'id' | 'slug'>): { id: string; slug: string } {
  return { id: event.id, slug: event.slug };
}
