import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import { executeStatement, queryStatement, type PreparedStatements } from '../../platform/db/prepared-statements';
import { sqlStatements } from '../../platform/db/sql-statement';
import { EventEntity } from './event.entity';
import { EventOrder } from './event-order';
import { EventStatus } from './event-status';
import { heldCountSql, registrationCountSql, soldSql, typeHeldSql } from '../inventory/inventory.repository';
import { queueSettingsJson } from '../queue/queue-sql';
import type { EventQueue } from '../queue/queue.types';

/**
 * The hot reads of events as fixed SQL (prepared once per connection), returning rows already shaped
 * as the GraphQL type wants them: property names of the schema, `status` as clients see it (D3), dates
 * as ISO 8601 strings made by PostgreSQL (serialized once, not per field). Read-only: every function
 * takes the caller's organization first and nothing crosses it.
 */

/** One event as the API shows it (the fields of the Event type; ticket types only where read). */
export interface EventView {
  id: string;
  slug: string;
  title: string;
  description: string | null;
  startDate: string;
  endDate: string;
  timezone: string;
  venue: string | null;
  venueAddress: string | null;
  coverImage: string | null;
  status: EventStatus;
  capacity: number | null;
  registrationCount: number;
  /** Seats held now (D20): free seats = capacity − registrationCount − heldCount. */
  heldCount: number;
  /** CONFIRMED bookings checked in (D22). */
  checkedInCount: number;
  organizationId: string;
  createdAt: string;
  updatedAt: string;
  ticketTypes?: TicketTypeView[];
  /** The series it is an occurrence of (D28), or null: Event.series reads it. */
  seriesId: string | null;
  /** The on-sale queue's settings (D30); null without one. */
  queue: EventQueue | null;
}

export interface TicketTypeView {
  id: string;
  name: string;
  price: number;
  currency: string;
  quantity: number;
  sold: number;
  /** Tickets held now (D20). */
  held: number;
}

export interface EventListQuery {
  page: number;
  limit: number;
  status?: EventStatus | null;
  /** Events starting strictly after this instant. */
  startsAfter?: Date | null;
  /** Events starting strictly before this instant. */
  startsBefore?: Date | null;
  /** Case-insensitive substring of the title. */
  search?: string | null;
  /** Only the occurrences of the organization's series with this slug (D28). */
  series?: string | null;
  orderBy?: EventOrder | null;
  /** A cursor (D25): the page after the row it names, instead of a page number. */
  after?: string | null;
}

const sql = sqlStatements(__filename);

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * How many CONFIRMED bookings of the event `alias` are checked in (D22; SQL): bookings, not seats. On
 * the partial index bookings_checked_in_event_index, which holds exactly the checked-in rows.
 */
export const checkedInCountSql = (alias: string): string =>
  `(select count(*)::int from bookings b where b.event_id = ${alias}.id and b.checked_in_at is not null and b.status = 'CONFIRMED')`;

/**
 * The Event fields of a row, the counts clients read included (D20: both doors show heldCount and
 * checkedInCount), holds judged at `at` (an SQL timestamptz: the request's clock).
 */
export const eventColumns = (at: string) => `
  ${iso('e.created_at')} as "createdAt", ${iso('e.updated_at')} as "updatedAt",
  e.id, e.slug, e.title, e.description,
  ${iso('e.start_date')} as "startDate", ${iso('e.end_date')} as "endDate",
  e.timezone, e.venue, e.venue_address as "venueAddress", e.cover_image as "coverImage",
  case when e.status = 'PUBLISHED' and e.end_date <= now() then 'COMPLETED' else e.status end as status,
  e.capacity, ${registrationCountSql('e')} as "registrationCount", ${heldCountSql('e', at)} as "heldCount",
  ${checkedInCountSql('e')} as "checkedInCount", e.organization_id as "organizationId", e.series_id as "seriesId", ${queueSettingsJson('e')} as queue`;

const ticketTypesJson = (at: string) => `
  coalesce((select json_agg(json_build_object(
      'id', t.id, 'name', t.name, 'price', t.price, 'currency', t.currency, 'quantity', t.quantity, 'sold', ${soldSql('t')},
      'held', ${typeHeldSql('t', at)}
    ) order by t.created_at, t.id) from ticket_types t where t.event_id = e.id), '[]'::json)`;

/** One statement: the event with its counts and its ticket types (as JSON), or nothing. */
const BY_SLUG = sql.statement<{ organizationId: string; slug: string; at: Date }, EventView>(
  'eventBySlug',
  `select ${eventColumns(':at::timestamptz')}, ${ticketTypesJson(':at::timestamptz')} as "ticketTypes"
  from events e where e.organization_id = :organizationId and e.slug = :slug`,
);

export async function findEventBySlug(db: PreparedStatements, organizationId: string, slug: string, at: Date = new Date()): Promise<EventView | null> {
  const [row] = await queryStatement(db, BY_SLUG, { organizationId, slug, at });
  return row ?? null;
}

const TICKET_TYPES_OF_EVENTS = sql.statement<{ eventIds: readonly string[]; at: Date }, TicketTypeView & { eventId: string }>(
  'ticketTypesOfEvents',
  `select t.event_id as "eventId", t.id, t.name, t.price::float8 as price, t.currency, t.quantity, ${soldSql('t')} as sold,
    ${typeHeldSql('t', ':at::timestamptz')} as held
  from ticket_types t where t.event_id = any(:eventIds::text[]) order by t.created_at, t.id`,
);

/** The ticket types of several events (of one organization's page), with their counts (holds judged at `at`), in one statement. */
export async function ticketTypesOfEvents(db: PreparedStatements, eventIds: readonly string[], at: Date = new Date()): Promise<Map<string, TicketTypeView[]>> {
  const rows = await queryStatement(db, TICKET_TYPES_OF_EVENTS, { eventIds, at });
  const byEvent = new Map<string, TicketTypeView[]>(eventIds.map((id) => [id, []]));
  for (const { eventId, ...ticketType } of rows) byEvent.get(eventId)?.push(ticketType);
  return byEvent;
}

// The partial index bookings_checked_in_event_index holds exactly the checked-in rows of each event.
const CHECKED_IN_OF_EVENTS = sql.statement<{ eventIds: readonly string[] }, { eventId: string; count: number }>(
  'checkedInOfEvents',
  `select b.event_id as "eventId", count(*)::int as count
  from bookings b where b.event_id = any(:eventIds::text[]) and b.checked_in_at is not null and b.status = 'CONFIRMED' group by b.event_id`,
);

/** How many CONFIRMED bookings of each event are checked in (D22), for several events in one statement. */
export async function checkedInCountsOfEvents(db: PreparedStatements, eventIds: readonly string[]): Promise<Map<string, number>> {
  const rows = await queryStatement(db, CHECKED_IN_OF_EVENTS, { eventIds });
  return new Map(rows.map((row) => [row.eventId, row.count]));
}

const ID_BY_SLUG = sql.statement<{ organizationId: string; slug: string }, { id: string; slots: number }>('idBySlug', 'select id, slots from events where organization_id = :organizationId and slug = :slug');

/** The id of the organization's event `slug` (one statement), or null. */
export async function idBySlugOrNull(em: EntityManager, organizationId: string, slug: string): Promise<{ id: string; slots: number } | null> {
  const [row] = await executeStatement(em, ID_BY_SLUG, { organizationId, slug });
  return row ?? null;
}

/** The id of the organization's event `slug` (one statement), or EVENT_NOT_FOUND. */
export async function idBySlug(em: EntityManager, organizationId: string, slug: string): Promise<string> {
  const event = await em.findOne(EventEntity, { organization: organizationId, slug });
  if (!event) throw AppError.eventNotFound(slug);
  return event.id;
}
