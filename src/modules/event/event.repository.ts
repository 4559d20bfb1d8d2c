import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import { EventEntity } from './event.entity';
import { duplicateSlugError } from './event.policy';
import { EventStatus } from './event-status';
import { executePrepared, statementText } from '../../platform/db/prepared-statements';
import { noteOutboxWrite, type SqlPart } from '../../platform/outbox/outbox';
import {
  asEventRow,
  asTicketTypeRow,
  EVENT_ROW,
  managedEvent,
  ticketTypeRows,
  type AsText,
  type EventCounts,
  type EventRow,
  type TicketTypeRow,
} from './event-rows';
import { heldCountSql, registrationCountSql, storedHeldSql } from '../inventory/inventory.repository';
import { checkedInCountSql } from './event.read-repository';

/*
 * The only place that reaches the events table. The organization is always the first
 * argument after the entity manager: another organization's event is simply not found (D1).
 */

// ---- Write side --------------------------------------------------------------------------------

export async function slugTaken(em: EntityManager, organizationId: string, slug: string): Promise<boolean> {
  return (await em.count(EventEntity, { organization: organizationId, slug })) > 0;
}

// ---- Write side as SQL statements --------------------------------------------------------------
//
// The commands' changes, each one statement that writes (no flush, no change set): the rules stay in
// event.policy.ts; what a statement checks itself is only what must be checked on the row as it is
// locked (a guard), and the command works out the reason from the policy when the guard refuses. The
// managed entities the doors render are built from what the statement wrote, never flushed again.

/** The webhook rows a change's statement writes (event.webhooks.ts): CTEs gated on the CTE `gate`. */
export type OutboxOf = (gate: string) => SqlPart;

/** A PostgreSQL array literal of text values (for `?::text[]`: one binding, however many values). */
function textArray(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`;
}

/** The last select of a statement with outbox CTEs tells whether it wrote a message. */
const OUTBOX_WRITTEN = 'exists (select 1 from outbox_message) as outbox_written';

function noteOutbox(em: EntityManager, row: { outbox_written?: boolean } | undefined): void {
  if (row?.outbox_written) noteOutboxWrite(em);
}

export interface NewEvent {
  id: string;
  slug: string;
  title: string;
  description: string | null;
  startDate: Date;
  endDate: Date;
  timezone: string;
  venue: string | null;
  venueAddress: string | null;
  coverImage: string | null;
  capacity: number | null;
  createdAt: Date;
  ticketTypes: ReadonlyArray<NewTicketType>;
}

export interface NewTicketType {
  id: string;
  name: string;
  price: number;
  currency: string;
  quantity: number;
  createdAt: Date;
}

/**
 * A new event in DRAFT with its ticket types, as one statement (no BEGIN / COMMIT of its own): the
 * event, its ticket types (one unnest) and the outbox rows of `outbox` (gated on the event's row). The
 * unique index on (organization, slug) decides a duplicate slug (guardingSlug). Every value is made
 * here, so nothing is read back: the managed entity is built from them.
 */
export async function insertEvent(em: EntityManager, organizationId: string, event: NewEvent, outbox: OutboxOf): Promise<EventEntity> {
  const types = event.ticketTypes;
  const messages = outbox('created');
  const [row] = await executePrepared<{ outbox_written: boolean }>(em, 
    statementText('insertEvent', () => `with created as (
       insert into events (id, organization_id, slug, title, description, start_date, end_date, timezone, venue, venue_address,
                           cover_image, status, capacity, registration_count, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'DRAFT', ?, 0, ?, ?)
       returning id, organization_id),
     types as (
       insert into ticket_types (id, organization_id, event_id, name, price, currency, quantity, sold, created_at)
       select t.id, c.organization_id, c.id, t.name, t.price, t.currency, t.quantity, 0, t.created_at
         from created c,
              unnest(?::text[], ?::text[], ?::numeric[], ?::text[], ?::int[], ?::timestamptz[]) as t(id, name, price, currency, quantity, created_at)),
     ${messages.sql}
     select ${OUTBOX_WRITTEN}`),
    [
      event.id,
      organizationId,
      event.slug,
      event.title,
      event.description,
      event.startDate,
      event.endDate,
      event.timezone,
      event.venue,
      event.venueAddress,
      event.coverImage,
      event.capacity,
      event.createdAt,
      event.createdAt,
      textArray(types.map((type) => type.id)),
      textArray(types.map((type) => type.name)),
      `{${types.map((type) => type.price).join(',')}}`,
      textArray(types.map((type) => type.currency)),
      `{${types.map((type) => type.quantity).join(',')}}`,
      `{${types.map((type) => type.createdAt.toISOString()).join(',')}}`,
      ...messages.bindings,
    ],
  );
  noteOutbox(em, row);
  const { ticketTypes, ...fields } = event;
  // A new event has no booking: nothing sold, held or checked in.
  return managedEvent(
    em,
    { ...fields, organization: organizationId, storedStatus: EventStatus.DRAFT, registrationCount: 0, updatedAt: event.createdAt },
    ticketTypes.map((type) => ({ ...type, sold: 0, held: 0 })),
    { heldCount: 0, checkedInCount: 0 },
  );
}

/**
 * The event as a change reads it before deciding (no lock: the change's statement checks that the
 * event is still as read, see updateEventIfUnchanged), with its ticket types, or null.
 */
export interface StoredEvent {
  event: EventRow;
  ticketTypes: TicketTypeRow[];
  /** Its inventory slots (src/modules/inventory/; 0: its count is on its row). */
  slots: number;
  /** What updateEventIfUnchanged compares: every field a client sets, as read. */
  version: string;
  /** Seats in use: its registrations and its held seats as stored (a capacity may not go below them). */
  seatsTaken: number;
  /** Its counts as clients read them (what an update that changes nothing answers). */
  counts: EventCounts;
}

/** The fields a client sets (what an update compares to tell whether the event changed meanwhile). */
const SETTABLE_VERSION = (alias: string) =>
  `md5(row(${alias}.slug, ${alias}.title, ${alias}.description, ${alias}.start_date, ${alias}.end_date, ${alias}.timezone, ${alias}.venue,
    ${alias}.venue_address, ${alias}.cover_image, ${alias}.status, ${alias}.capacity)::text)`;

/** The event `slug` as a change reads it (see StoredEvent), holds judged at `at`. */
export async function readForChange(em: EntityManager, organizationId: string, slug: string, at: Date): Promise<StoredEvent | null> {
  const [row] = await executePrepared<
    AsText<EventRow, 'startDate' | 'endDate' | 'createdAt' | 'updatedAt'> &
      EventCounts & { version: string; ticketTypes: TicketTypeRow[]; slots: number; held: number }
  >(em,
    `select ${EVENT_ROW}, ${SETTABLE_VERSION('e')} as version, ${ticketTypeRows('e', 'k.at')} as "ticketTypes", e.slots, ${storedHeldSql('e')} as held,
            ${heldCountSql('e', 'k.at')} as "heldCount", ${checkedInCountSql('e')} as "checkedInCount"
       from events e cross join (select ?::timestamptz as at) k where e.organization_id = ? and e.slug = ?`,
    [at, organizationId, slug],
  );
  if (!row) return null;
  const { version, ticketTypes, slots, held, heldCount, checkedInCount, ...event } = row;
  return {
    event: asEventRow(event),
    version,
    ticketTypes: ticketTypes.map(asTicketTypeRow),
    slots,
    seatsTaken: event.registrationCount + held,
    counts: { heldCount, checkedInCount },
  };
}

/** What an update sets: every field a client sets (unchanged ones as read) and the time of the change. */
export type EventChange = Pick<
  EventRow,
  'slug' | 'title' | 'description' | 'startDate' | 'endDate' | 'timezone' | 'venue' | 'venueAddress' | 'coverImage' | 'storedStatus' | 'capacity' | 'updatedAt'
>;

/**
 * The update of an event read as `stored`, as one statement: it applies only while every field a
 * client sets is still as read (else null: the caller reads again and decides again) and, on the row
 * as locked, the capacity is not below the registrations (the CHECK constraint's condition, D4: a
 * booking made since the read refuses it here instead of failing the statement). With the outbox rows
 * of `outbox` (gated on the updated row). Returns the event as changed, with its counts and its ticket
 * types as the statement read them (holds judged at the change's time).
 */
export async function updateEventIfUnchanged(
  em: EntityManager,
  stored: StoredEvent,
  change: EventChange,
  outbox: OutboxOf,
): Promise<EventEntity | null> {
  // `counted` (the gate) reads the event in the statement's snapshot, as the ticket types are read.
  const messages = outbox('counted');
  const [row] = await executePrepared<
    { id: string | null; registrationCount: number; ticketTypes: TicketTypeRow[]; outbox_written: boolean } & EventCounts
  >(em,
    `with changed as (
       update events e set slug = ?, title = ?, description = ?, start_date = ?, end_date = ?, timezone = ?, venue = ?,
                           venue_address = ?, cover_image = ?, status = ?, capacity = ?, updated_at = ?
        where e.id = ? and ${SETTABLE_VERSION('e')} = ? and (?::int is null or e.registration_count + e.held_count <= ?::int)
       returning e.id),
     counted as (
       select e.id, ${registrationCountSql('e')} as registration_count, ${heldCountSql('e', 'k.at')} as held_count,
              ${checkedInCountSql('e')} as checked_in_count, k.at
         from events e join changed c on c.id = e.id cross join (select ?::timestamptz as at) k),
     ${messages.sql}
     select r.id, r.registration_count as "registrationCount", r.held_count as "heldCount", r.checked_in_count as "checkedInCount",
            ${ticketTypeRows('r', 'r.at')} as "ticketTypes", ${OUTBOX_WRITTEN}
       from (select 1) one left join counted r on true`,
    [
      change.slug,
      change.title,
      change.description,
      change.startDate,
      change.endDate,
      change.timezone,
      change.venue,
      change.venueAddress,
      change.coverImage,
      change.storedStatus,
      change.capacity,
      change.updatedAt,
      stored.event.id,
      stored.version,
      change.capacity,
      change.capacity,
      change.updatedAt,
      ...messages.bindings,
    ],
  );
  noteOutbox(em, row);
  if (!row?.id) return null;
  return managedEvent(
    em,
    { ...stored.event, ...change, registrationCount: row.registrationCount },
    row.ticketTypes.map(asTicketTypeRow),
    { heldCount: row.heldCount, checkedInCount: row.checkedInCount },
  );
}

/**
 * Deletes the organization's event `slug` with its ticket types and cancelled bookings (ON DELETE
 * CASCADE), as one statement, only without confirmed bookings (D3; the registrations, which every
 * booking changes under the event's row lock, are checked on the row as locked); with the outbox rows
 * of `outbox` (gated on the deleted row). Returns the deleted event's id, or null (not found, it has
 * bookings, or it is of the other kind: the caller works out which). A slotted event's bookings take
 * no lock on its row: `slotted` deletes one only after the caller locked every slot of it (in the same
 * transaction), so that no booking is in flight when this statement looks for them.
 */
export async function deleteEventWithoutBookings(
  em: EntityManager,
  organizationId: string,
  slug: string,
  outbox: OutboxOf,
  slotted = false,
): Promise<string | null> {
  const messages = outbox('deleted');
  const [row] = await executePrepared<{ id: string | null; outbox_written: boolean }>(em, 
    `with deleted as (
       delete from events e
        where e.organization_id = ? and e.slug = ? and e.registration_count = 0 and ${slotted ? 'e.slots > 0' : 'e.slots = 0'}
          and not exists (select 1 from bookings b where b.event_id = e.id and b.status = 'CONFIRMED')
       returning e.id),
     ${messages.sql}
     select d.id, ${OUTBOX_WRITTEN} from (select 1) one left join deleted d on true`,
    [organizationId, slug, ...messages.bindings],
  );
  noteOutbox(em, row);
  return row?.id ?? null;
}

/**
 * Runs `work`; two requests can both pass the slug pre-check, so the unique index decides and the
 * loser gets the same 400 as a sequential duplicate (D1), never a 500.
 */
export async function guardingSlug<T>(slug: string | null | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException && slug) throw AppError.validation([duplicateSlugError(slug)]);
    throw error;
  }
}
