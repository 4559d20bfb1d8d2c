import type { EntityManager } from '@mikro-orm/postgresql';
import { effectiveStatus, type EventStatus } from '../event/event-status';
import { EventEntity } from '../event/event.entity';
import { OrganizationEntity } from '../organization/organization.entity';
import { TicketTypeEntity } from '../ticket-type/ticket-type.entity';
import { noteOutboxWrite, outboxCtes } from '../../platform/outbox/outbox';
import type { RecoveryPointCtes } from '../../platform/db/unit-of-work-scope';
import type { IssuedTicketCode } from '../../platform/crypto/ticket-codes';
import { BookingEntity, type BookingStatus } from './booking.entity';
import { queueGateFoundOf, type QueueGateFound } from '../queue/queue-gate.repository';

/*
 * What the booking statements share: the columns their one answer row carries, how that row becomes
 * the command's BookingChange, the booking's insert, and an Idempotency-Key's recovery point inside the
 * statement. The statements: booking.repository.ts (a booking, bookEvent),
 * booking-transitions.repository.ts (cancel, expire, confirm), check-in.repository.ts; the seats they
 * take and give back, once per inventory mode: src/modules/inventory/inventory-modes.repository.ts.
 *
 * A booking and a cancellation are each ONE statement (D7): the locks of the event's seats (its row,
 * or one of its slots), the rules of booking.policy.ts as the guards of the updates (status, end,
 * capacity, quantity), the counts, the booking row and the outbox message commit together, and no
 * round trip to the service happens while a lock is held. The statement always answers one row: the
 * change, or what it found, from which the command works out the refusal (only on that path).
 */

/** The event's columns a refusal is worked out from. */
export const EVENT_COLUMNS = ['id', 'slug', 'status', 'end_date', 'capacity', 'registration_count', 'held_count', 'slots'] as const;
/** A booking's columns, as an answer carries them. */
export const BOOKING_COLUMNS = [
  'id', 'organization_id', 'event_id', 'ticket_type_id', 'quantity', 'attendee_email', 'attendee_name', 'status',
  'created_at', 'cancelled_at', 'slot', 'expires_at', 'confirmed_at', 'checked_in_at', 'ticket_code_sealed',
] as const;

/** The booking as a cancellation left it (`ub`) or, when it refused, as found (`b`): the row `coalesce_b`. */
export const CANCELLED_OR_FOUND = `left join lateral (
            select ${BOOKING_COLUMNS.map((column) => `ub.${column}`).join(', ')} where ub.id is not null
            union all
            select ${BOOKING_COLUMNS.map((column) => `b.${column}`).join(', ')} where ub.id is null) coalesce_b on true`;

/** `alias.column as "prefix.column", …`: one row carries several tables' rows apart. */
export const columnsOf = (alias: string, prefix: string, columns: readonly string[]) =>
  columns.map((column) => `${alias}.${column} as "${prefix}.${column}"`).join(', ');

/** The row of table `prefix` out of a statement's answer, or null when it has none. */
function rowOf(answer: Record<string, unknown>, prefix: string, columns: readonly string[]): Record<string, unknown> | null {
  if (answer[`${prefix}.id`] == null) return null;
  const row: Record<string, unknown> = {};
  for (const column of columns) row[column] = answer[`${prefix}.${column}`];
  return row;
}

/** What a booking or cancellation statement found or changed. */
export interface BookingChange {
  /** Whether the statement made its change (false: it refused, and the rows are what it found). */
  readonly changed: boolean;
  /**
   * The booking made or cancelled (or, when a cancellation refused, as found), as a managed entity;
   * null when there is none. Only the booking is made an entity (that costs CPU on the hot path); its
   * event and ticket type load when an answer asks for them.
   */
  readonly booking: BookingEntity | null;
  /**
   * The event as found (refusals only; null when there is none or the change was made).
   * `registrationCount` counts every seat taken on its row: confirmed and held.
   */
  readonly event: {
    id: string;
    slug: string;
    status: EventStatus;
    capacity: number | null;
    registrationCount: number;
    /** Of those, the held seats as stored (lapsed holds included until expired): on its row, and in its slots. */
    held: number;
  } | null;
  /** The ticket type as found (refusals only); `sold` counts its confirmed and held tickets on its row. */
  readonly ticketType: { id: string; quantity: number; sold: number } | null;
  /**
   * Refusals of a booking only: the event's slot count as the statement read it, which is its
   * inventory mode (0: its counts are on its row; null: no such event).
   */
  readonly slots: number | null;
  /**
   * Refusals of a booking of a slotted event only: what was left in all its slots and in the ticket
   * type's, as the statement saw them (null: no limit, or no ticket type).
   */
  readonly room?: { readonly event: number | null; readonly ticketType: number | null };
  /**
   * Refusals of a booking only, when the event's queue (D30) refused it: its settings as read and the
   * entry presented as locked (null: none of this event); null when the queue let it through.
   */
  readonly queue?: QueueGateFound | null;
}


/** The booking's row as a managed entity, registered as loaded (its properties given directly: no column mapping). */
function managedBooking(em: EntityManager, row: Record<string, unknown>): BookingEntity {
  const date = (value: unknown) => (value == null ? null : new Date(value as string));
  return em.merge(
    BookingEntity,
    {
      id: row.id as string,
      organization: row.organization_id as string,
      event: row.event_id as string,
      ticketType: row.ticket_type_id as string | null,
      quantity: row.quantity as number,
      attendeeEmail: row.attendee_email as string,
      attendeeName: row.attendee_name as string,
      status: row.status as BookingStatus,
      createdAt: date(row.created_at)!,
      cancelledAt: date(row.cancelled_at),
      slot: row.slot as number | null,
      expiresAt: date(row.expires_at),
      confirmedAt: date(row.confirmed_at),
      checkedInAt: date(row.checked_in_at),
      ticketCodeSealed: row.ticket_code_sealed as string | null,
    },
    { refresh: true },
  );
}

/**
 * A booking just made, from the statement's answer row (its `b.` columns, no copy of them), for the answer only: the entity's class with its fields set
 * directly (the ORM's hydration and identity map are costly on the hot path: docs/performance.md), its
 * organization, event and ticket type references not registered in the identity map. Nothing later in
 * the request changes it; a retry after a crash loads it again by id. Its event's slug, as the
 * statement read it, spares the answer a read of the event.
 */
function madeBooking(em: EntityManager, answer: Record<string, unknown>): BookingEntity {
  const ticketTypeId = answer['b.ticket_type_id'] as string | null;
  return Object.assign(Object.create(BookingEntity.prototype) as BookingEntity, {
    id: answer['b.id'] as string,
    organization: em.getReference(OrganizationEntity, answer['b.organization_id'] as string, { wrapped: true }),
    event: em.getReference(EventEntity, answer['b.event_id'] as string, { wrapped: true }),
    ticketType: ticketTypeId === null ? null : em.getReference(TicketTypeEntity, ticketTypeId, { wrapped: true }),
    quantity: answer['b.quantity'] as number,
    attendeeEmail: answer['b.attendee_email'] as string,
    attendeeName: answer['b.attendee_name'] as string,
    status: answer['b.status'] as BookingStatus,
    createdAt: new Date(answer['b.created_at'] as string),
    cancelledAt: answer['b.cancelled_at'] == null ? null : new Date(answer['b.cancelled_at'] as string),
    slot: answer['b.slot'] as number | null,
    expiresAt: answer['b.expires_at'] == null ? null : new Date(answer['b.expires_at'] as string),
    confirmedAt: answer['b.confirmed_at'] == null ? null : new Date(answer['b.confirmed_at'] as string),
    checkedInAt: answer['b.checked_in_at'] == null ? null : new Date(answer['b.checked_in_at'] as string),
    ticketCodeSealed: answer['b.ticket_code_sealed'] as string | null,
    eventSlug: answer['e.slug'] as string,
  });
}

/**
 * `answers`: for a booking just made, the entity manager its answer loads the event and ticket type
 * with: the request's own, not a transaction's (the answer is read after the commit).
 */
export function changeOf(em: EntityManager, answer: Record<string, unknown>, changed: boolean, answers?: EntityManager): BookingChange {
  const made = answer['b.id'] != null;
  if (answer.outbox_written === true) noteOutboxWrite(em);
  const found = !changed && answer['e.id'] != null;
  return {
    changed,
    slots: !changed && answer['ev.id'] != null ? Number(answer['ev.slots']) : null,
    booking: !made ? null : answers ? madeBooking(answers, answer) : managedBooking(em, rowOf(answer, 'b', BOOKING_COLUMNS)!),
    event: found
      ? {
          id: answer['e.id'] as string,
          slug: answer['e.slug'] as string,
          // Dates come as the ORM's driver gives them (text), as for every raw statement.
          status: effectiveStatus(answer['e.status'] as EventStatus, new Date(answer['e.end_date'] as string)),
          capacity: answer['e.capacity'] as number | null,
          registrationCount: (answer['e.registration_count'] as number) + ((answer['e.held_count'] as number | null) ?? 0),
          held: ((answer['e.held_count'] as number | null) ?? 0) + ((answer['room.held'] as number | null) ?? 0),
        }
      : null,
    ticketType:
      !changed && answer['t.id'] != null
        ? { id: answer['t.id'] as string, quantity: answer['t.quantity'] as number, sold: (answer['t.sold'] as number) + ((answer['t.held'] as number | null) ?? 0) }
        : null,
    ...(found && 'room.event' in answer
      ? { room: { event: answer['room.event'] as number | null, ticketType: answer['room.ticketType'] as number | null } }
      : {}),
    // D30: the queue's gate refused (its columns read only on this path).
    queue: found && answer['q.gated'] === true && answer['q.ok'] !== true ? queueGateFoundOf(answer) : null,
  };
}

export interface NewBooking {
  readonly id: string;
  readonly eventSlug: string;
  readonly ticketTypeId: string | null;
  readonly quantity: number;
  readonly attendeeEmail: string;
  readonly attendeeName: string;
  readonly createdAt: Date;
  /** A hold's end (D20): the booking is HELD until then; null for a booking CONFIRMED when made. */
  readonly expiresAt: Date | null;
  /** Its ticket code (D29), issued before the statement: a booking CONFIRMED when made has one; a hold gets one when confirmed. */
  readonly ticket?: IssuedTicketCode | null;
  /** The admission it presents (D30: the ADMITTED queue entry of its attendee), or none. */
  readonly queueEntryId?: string | null;
}

/** A booking to make: whose, what, its message's data and where its answer and its key go. */
export interface BookingRequest {
  readonly organizationId: string;
  readonly fields: NewBooking;
  /** booking.created's data, with hole() for the event's id (filled in by the statement). */
  readonly webhookData: object;
  /** The request's own entity manager, which the answer loads the event and ticket type with. */
  readonly answers: EntityManager;
  /** With an Idempotency-Key: its recovery point, written by the statement. */
  readonly idempotency?: RecoveryPointCtes;
  /**
   * Whether the event's queue gates it (D30): a client's booking (createBooking); not an offer of the
   * waiting list's (D21: freed seats go to the waiting list whatever the queue).
   */
  readonly queueGated?: boolean;
}

/** The holes of a booking's webhook data: its event's id, from the booking row (`g`). */
export const BOOKING_HOLES = ['to_json(g.event_id)::text'];

/**
 * The booking's row, from the CTE `ok` (event_id, slot: where its seats were taken): the one insert of
 * a booking, its values the named parameters of `bookingParts(…).insert`. HELD with an expiry (D20),
 * else CONFIRMED; a CONFIRMED one carries its ticket code's keyed hash and sealed form (D29).
 */
export const INSERT_BOOKING = `b as (
       insert into bookings (id, organization_id, event_id, ticket_type_id, quantity, attendee_email, attendee_name, status, created_at, expires_at, slot,
                             ticket_code_hash, ticket_code_sealed)
       select :id, :organizationId, ok.event_id, :ticketTypeId::text, :quantity::int, :attendeeEmail, :attendeeName,
              case when :expiresAt::timestamptz is null then 'CONFIRMED' else 'HELD' end, :createdAt::timestamptz, :expiresAt::timestamptz, ok.slot,
              :ticketCodeHash::text, :ticketCodeSealed::text
         from ok
       returning *)`;

/** The values of INSERT_BOOKING, by name. */
export interface BookingInsert {
  readonly id: string;
  readonly organizationId: string;
  readonly ticketTypeId: string | null;
  readonly quantity: number;
  readonly attendeeEmail: string;
  readonly attendeeName: string;
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
  readonly ticketCodeHash: string | null;
  readonly ticketCodeSealed: string | null;
}

/**
 * The texts a booking statement is made of besides its own: the same for every booking, so its two
 * statements (with and without an Idempotency-Key) are declared once (bookEvent).
 */
export interface BookingTexts {
  /** With an Idempotency-Key (D17): the key's record locked first, the change gated on it, the point written after the booking row. */
  readonly keyed: boolean;
  readonly claim: string;
  readonly gate: string;
  readonly point: string;
  readonly held: string;
  /** booking.created (booking.held for a hold) as outbox CTEs over the booking row `b`. */
  readonly messages: string;
}

/**
 * The values of a booking statement for one request: the booking's insert (INSERT_BOOKING) and what
 * its texts around its own CTEs are bound to (BookingTexts), by name; `keyed` picks its statement.
 */
export function bookingParts(request: BookingRequest) {
  const { organizationId, fields, idempotency } = request;
  const hold = fields.expiresAt !== null;
  const ticket = fields.ticket ?? null;
  if (hold === (ticket !== null)) throw new Error(`booking ${fields.id}: a booking CONFIRMED when made needs a ticket code, a hold none (D29)`);
  const outbox = outboxCtes(organizationId, hold ? 'booking.held' : 'booking.created', 'b', request.webhookData, BOOKING_HOLES);
  const key = idempotency?.parts('b');
  const insert: BookingInsert = {
    id: fields.id,
    organizationId,
    ticketTypeId: fields.ticketTypeId,
    quantity: fields.quantity,
    attendeeEmail: fields.attendeeEmail,
    attendeeName: fields.attendeeName,
    createdAt: fields.createdAt,
    expiresAt: fields.expiresAt,
    ticketCodeHash: ticket?.lookupHash ?? null,
    ticketCodeSealed: ticket?.sealed ?? null,
  };
  return {
    /** With an Idempotency-Key (D17): its claim and recovery point are in the statement. */
    keyed: key !== undefined,
    /** The seats of the booking that are held (D20): all of them for a hold. */
    held: hold ? fields.quantity : 0,
    insert,
    messages: outbox.bindings,
    claim: key?.claim.bindings ?? [],
    point: key?.point.bindings ?? [],
  };
}
