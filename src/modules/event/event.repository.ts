import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import { EventEntity } from './event.entity';
import { duplicateSlugError } from './event.policy';
import { EventStatus } from './event-status';
import { executeStatement } from '../../platform/db/prepared-statements';
import { fragment, sqlStatements } from '../../platform/db/sql-statement';
import { auditCtes } from '../../platform/audit/audit-log';
import { hole, noteOutboxWrite, outboxCtes, type SqlPart } from '../../platform/outbox/outbox';
import {
  CHECKED_IN_COUNT_JSON,
  HELD_COUNT_JSON,
  REGISTRATION_COUNT_JSON,
  TICKET_TYPES_JSON,
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

const sql = sqlStatements(__filename);

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
  const { ticketTypes, ...fields } = event;
  // A new event has no booking: nothing sold, held or checked in.
  return managedEvent(
    em,
    { ...fields, organization: organizationId, storedStatus: EventStatus.DRAFT, registrationCount: 0, updatedAt: event.createdAt },
    ticketTypes.map((type) => ({ ...type, sold: 0, held: 0 })),
    { heldCount: 0, checkedInCount: 0 },
  );
}

/** A statement whose text includes the outbox (and audit) CTEs of a change: one variant per text of those CTEs. */
interface WithMessages {
  /** The CTEs' SQL (OutboxOf), with knex's `?` placeholders; their bindings are the parameter `messages`. */
  readonly messages: string;
}

const byMessages = { key: (variant: WithMessages) => variant.messages };

/** What the snapshots show for the outbox CTEs: a message of `type` gated on `gate`, with `holes` filled by the statement. */
const exampleOutbox = (type: string, gate: string, holes: readonly string[] = []): string =>
  outboxCtes('org_example', type, gate, Object.fromEntries(holes.map((_, at) => [`filled${at}`, hole()])), holes).sql;
const exampleAudit = (gate: string, action: 'event.published' | 'event.deleted'): string =>
  auditCtes({ actor: { kind: 'api-key', apiKeyId: 'key_example', prefix: 'nk_test_example' } }, { organizationId: 'org_example', action }, gate).sql;

type InsertEventParams = Pick<NewEvent, 'id' | 'slug' | 'title' | 'description' | 'startDate' | 'endDate' | 'timezone' | 'venue' | 'venueAddress' | 'coverImage' | 'capacity' | 'createdAt'> & {
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
                           cover_image, status, capacity, registration_count, created_at, updated_at)
       values (:id, :organizationId, :slug, :title, :description, :startDate, :endDate, :timezone, :venue, :venueAddress, :coverImage, 'DRAFT', :capacity, 0, :createdAt, :createdAt)
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

const READ_FOR_CHANGE = sql.statement<
  { organizationId: string; slug: string; at: Date },
  AsText<EventRow, 'startDate' | 'endDate' | 'createdAt' | 'updatedAt'> & EventCounts & { version: string; ticketTypes: TicketTypeRow[]; slots: number; held: number }
>(
  'readForChange',
  `select ${EVENT_ROW}, ${SETTABLE_VERSION('e')} as version, ${ticketTypeRows('e', 'k.at')} as "ticketTypes", e.slots, ${storedHeldSql('e')} as held,
            ${heldCountSql('e', 'k.at')} as "heldCount", ${checkedInCountSql('e')} as "checkedInCount"
       from events e cross join (select :at::timestamptz as at) k where e.organization_id = :organizationId and e.slug = :slug`,
);

/** The event `slug` as a change reads it (see StoredEvent), holds judged at `at`. */
export async function readForChange(em: EntityManager, organizationId: string, slug: string, at: Date): Promise<StoredEvent | null> {
  const [row] = await executeStatement(em, READ_FOR_CHANGE, { organizationId, slug, at });
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
type UpdateEventParams = Omit<EventChange, 'storedStatus'> & { storedStatus: string; id: string; version: string; messages: readonly unknown[] };

// `counted` (the gate) reads the event in the statement's snapshot, as the ticket types are read.
const UPDATE_EVENT = sql.family<
  WithMessages,
  UpdateEventParams,
  { id: string | null; registrationCount: number; ticketTypes: TicketTypeRow[]; outbox_written: boolean } & EventCounts
>(
  'updateEventIfUnchanged',
  ({ messages }) => `with changed as (
       update events e set slug = :slug, title = :title, description = :description, start_date = :startDate, end_date = :endDate, timezone = :timezone, venue = :venue,
                           venue_address = :venueAddress, cover_image = :coverImage, status = :storedStatus, capacity = :capacity, updated_at = :updatedAt
        where e.id = :id and ${SETTABLE_VERSION('e')} = :version and (:capacity::int is null or e.registration_count + e.held_count <= :capacity::int)
       returning e.id),
     counted as (
       select e.id, ${registrationCountSql('e')} as registration_count, ${heldCountSql('e', 'k.at')} as held_count,
              ${checkedInCountSql('e')} as checked_in_count, k.at
         from events e join changed c on c.id = e.id cross join (select :updatedAt::timestamptz as at) k),
     ${fragment('messages', messages)}
     select r.id, r.registration_count as "registrationCount", r.held_count as "heldCount", r.checked_in_count as "checkedInCount",
            ${ticketTypeRows('r', 'r.at')} as "ticketTypes", ${OUTBOX_WRITTEN}
       from (select 1) one left join counted r on true`,
  {
    ...byMessages,
    examples: () => {
      const holes = [REGISTRATION_COUNT_JSON('g'), HELD_COUNT_JSON('g'), CHECKED_IN_COUNT_JSON('g'), TICKET_TYPES_JSON('g')];
      return {
        'event.updated': { messages: exampleOutbox('event.updated', 'counted', holes) },
        'event.published, audited': { messages: `${exampleOutbox('event.published', 'counted', holes)},\n     ${exampleAudit('counted', 'event.published')}` },
      };
    },
  },
);

export async function updateEventIfUnchanged(
  em: EntityManager,
  stored: StoredEvent,
  change: EventChange,
  outbox: OutboxOf,
): Promise<EventEntity | null> {
  const messages = outbox('counted');
  const [row] = await executeStatement(em, UPDATE_EVENT({ messages: messages.sql }), {
    ...change,
    id: stored.event.id,
    version: stored.version,
    messages: messages.bindings,
  });
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
const DELETE_EVENT = sql.family<WithMessages & { slotted: boolean }, { organizationId: string; slug: string; messages: readonly unknown[] }, { id: string | null; outbox_written: boolean }>(
  'deleteEventWithoutBookings',
  ({ messages, slotted }) => `with deleted as (
       delete from events e
        where e.organization_id = :organizationId and e.slug = :slug and e.registration_count = 0 and ${slotted ? 'e.slots > 0' : 'e.slots = 0'}
          and not exists (select 1 from bookings b where b.event_id = e.id and b.status = 'CONFIRMED')
       returning e.id),
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
