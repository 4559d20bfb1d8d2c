import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import { EventEntity } from './event.entity';
import { duplicateSlugError } from './event.policy';
import { EventStatus } from './event-status';
import { executeStatement } from '../../platform/db/prepared-statements';
import { fragment, sqlStatements } from '../../platform/db/sql-statement';
import { managedEvent } from './event-rows';
import { byMessages, exampleAudit, exampleOutbox, noteOutbox, OUTBOX_WRITTEN, type OutboxOf, type WithMessages } from './event-change-statements';
import type { QueueSettings } from '../queue/queue.policy';
import { queueColumnsOf, queueView, type QueueColumns } from '../queue/queue.presenter';

const sql = sqlStatements(__filename);

/*
 * With event-update.repository.ts, the only place that writes the events table (reads:
 * event.read-repository.ts, event-list.read-repository.ts). The organization is always the first
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

/** A PostgreSQL array literal of text values (for `?::text[]`: one binding, however many values). */
function textArray(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`;
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
  /** The on-sale queue's settings (D30), or null. */
  queue: QueueSettings | null;
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
  const [row] = await executeStatement(em, INSERT_EVENT({ messages: messages.sql }), {
    id: event.id,
    organizationId,
    slug: event.slug,
    title: event.title,
    description: event.description,
    startDate: event.startDate,
    endDate: event.endDate,
    timezone: event.timezone,
    venue: event.venue,
    venueAddress: event.venueAddress,
    coverImage: event.coverImage,
    capacity: event.capacity,
    ...queueColumnsOf(event.queue),
    createdAt: event.createdAt,
    typeIds: textArray(types.map((type) => type.id)),
    typeNames: textArray(types.map((type) => type.name)),
    typePrices: `{${types.map((type) => type.price).join(',')}}`,
    typeCurrencies: textArray(types.map((type) => type.currency)),
    typeQuantities: `{${types.map((type) => type.quantity).join(',')}}`,
    typeCreatedAts: `{${types.map((type) => type.createdAt.toISOString()).join(',')}}`,
    messages: messages.bindings,
  });
  noteOutbox(em, row);
  const { ticketTypes, queue, ...fields } = event;
  // A new event has no booking: nothing sold, held or checked in.
  const made = managedEvent(
    em,
    { ...fields, organization: organizationId, storedStatus: EventStatus.DRAFT, registrationCount: 0, updatedAt: event.createdAt, seriesId: null },
    ticketTypes.map((type) => ({ ...type, sold: 0, held: 0 })),
    { heldCount: 0, checkedInCount: 0 },
  );
  made.queue = queueView(event.id, queue);
  return made;
}

type InsertEventParams = Pick<NewEvent, 'id' | 'slug' | 'title' | 'description' | 'startDate' | 'endDate' | 'timezone' | 'venue' | 'venueAddress' | 'coverImage' | 'capacity' | 'createdAt'> &
  QueueColumns & {
  organizationId: string;
  /** The ticket types' columns as PostgreSQL array literals, unnested together. */
  typeIds: string;
  typeNames: string;
  typePrices: string;
  typeCurrencies: string;
  typeQuantities: string;
  typeCreatedAts: string;
  messages: readonly unknown[];
};

const INSERT_EVENT = sql.family<WithMessages, InsertEventParams, { outbox_written: boolean }>(
  'insertEvent',
  ({ messages }) => `with created as (
       insert into events (id, organization_id, slug, title, description, start_date, end_date, timezone, venue, venue_address,
                           cover_image, status, capacity, registration_count, created_at, updated_at,
                           queue_enabled, queue_opens_at, queue_on_sale_at, queue_admit_per_minute, queue_admission_minutes, queue_max_seats)
       values (:id, :organizationId, :slug, :title, :description, :startDate, :endDate, :timezone, :venue, :venueAddress, :coverImage, 'DRAFT', :capacity, 0, :createdAt, :createdAt,
               :queueEnabled::boolean, :queueOpensAt::timestamptz, :queueOnSaleAt::timestamptz, :queueAdmitPerMinute::int, :queueAdmissionMinutes::int, :queueMaxSeats::int)
       returning id, organization_id),
     types as (
       insert into ticket_types (id, organization_id, event_id, name, price, currency, quantity, sold, created_at)
       select t.id, c.organization_id, c.id, t.name, t.price, t.currency, t.quantity, 0, t.created_at
         from created c,
              unnest(:typeIds::text[], :typeNames::text[], :typePrices::numeric[], :typeCurrencies::text[], :typeQuantities::int[], :typeCreatedAts::timestamptz[]) as t(id, name, price, currency, quantity, created_at)),
     ${fragment('messages', messages)}
     select ${OUTBOX_WRITTEN}`,
  { ...byMessages, examples: () => ({ 'event.created': { messages: exampleOutbox('event.created', 'created') } }) },
);

/**
 * Deletes the organization's event `slug` with its ticket types and cancelled bookings (ON DELETE
 * CASCADE), as one statement, only without confirmed bookings (D3; the registrations, which every
 * booking changes under the event's row lock, are checked on the row as locked); with the outbox rows
 * of `outbox` (gated on the deleted row). An occurrence of a series (D28) leaves its date in the
 * series as an EXDATE line (a later change of the series does not make it again), and the series'
 * version changes. Returns the deleted event's id, or null (not found, it has
 * bookings, or it is of the other kind: the caller works out which). A slotted event's bookings take
 * no lock on its row: `slotted` deletes one only after the caller locked every slot of it (in the same
 * transaction), so that no booking is in flight when this statement looks for them.
 */
const DELETE_EVENT = sql.family<WithMessages & { slotted: boolean }, { organizationId: string; slug: string; messages: readonly unknown[] }, { id: string | null; outbox_written: boolean }>(
  'deleteEventWithoutBookings',
  ({ messages, slotted }) => `with deleted as (
       delete from events e
        where e.organization_id = :organizationId and e.slug = :slug and e.registration_count = 0 and ${slotted ? 'e.slots > 0' : 'e.slots = 0'}
          and not exists (select 1 from bookings b where b.event_id = e.id and b.status = 'CONFIRMED')
       returning e.id, e.organization_id, e.series_id, e.occurrence_key),
     forgotten as (
       update series s set recurrence = s.recurrence || ('EXDATE:' || to_char(d.occurrence_key, 'YYYYMMDD"T"HH24MISS')), version = s.version + 1
         from deleted d where d.series_id is not null and s.organization_id = d.organization_id and s.id = d.series_id),
     ${fragment('messages', messages)}
     select d.id, ${OUTBOX_WRITTEN} from (select 1) one left join deleted d on true`,
  {
    key: ({ messages, slotted }) => `${slotted ? 'slotted' : 'row'}:${messages}`,
    examples: () => {
      const messages = `${exampleOutbox('event.deleted', 'deleted', ['to_json(g.id)::text'])},\n     ${exampleAudit('deleted', 'event.deleted')}`;
      return { 'audited, counts on the row': { messages, slotted: false }, 'audited, slotted': { messages, slotted: true } };
    },
  },
);

export async function deleteEventWithoutBookings(
  em: EntityManager,
  organizationId: string,
  slug: string,
  outbox: OutboxOf,
  slotted = false,
): Promise<string | null> {
  const messages = outbox('deleted');
  const [row] = await executeStatement(em, DELETE_EVENT({ messages: messages.sql, slotted }), { organizationId, slug, messages: messages.bindings });
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
