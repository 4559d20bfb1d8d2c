import type { ListPosition } from '../../platform/db/list-position';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import { executePrepared, type PreparedStatements } from '../../platform/db/prepared-statements';
import { EventEntity } from './event.entity';
import { EventOrder } from './event-order';
import { EventStatus } from './event-status';
import { heldCountSql, registrationCountSql, soldSql, typeHeldSql } from '../inventory/inventory.repository';

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
  orderBy?: EventOrder | null;
  /** A cursor (D25): the page after the row it names, instead of a page number. */
  after?: string | null;
}

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
const eventColumns = (at: string) => `
  ${iso('e.created_at')} as "createdAt", ${iso('e.updated_at')} as "updatedAt",
  e.id, e.slug, e.title, e.description,
  ${iso('e.start_date')} as "startDate", ${iso('e.end_date')} as "endDate",
  e.timezone, e.venue, e.venue_address as "venueAddress", e.cover_image as "coverImage",
  case when e.status = 'PUBLISHED' and e.end_date <= now() then 'COMPLETED' else e.status end as status,
  e.capacity, ${registrationCountSql('e')} as "registrationCount", ${heldCountSql('e', at)} as "heldCount",
  ${checkedInCountSql('e')} as "checkedInCount", e.organization_id as "organizationId"`;

const ticketTypesJson = (at: string) => `
  coalesce((select json_agg(json_build_object(
      'id', t.id, 'name', t.name, 'price', t.price, 'currency', t.currency, 'quantity', t.quantity, 'sold', ${soldSql('t')},
      'held', ${typeHeldSql('t', at)}
    ) order by t.created_at, t.id) from ticket_types t where t.event_id = e.id), '[]'::json)`;

/** One statement: the event with its counts and its ticket types (as JSON), or nothing. */
const BY_SLUG = `select ${eventColumns('$3::timestamptz')}, ${ticketTypesJson('$3::timestamptz')} as "ticketTypes"
  from events e where e.organization_id = $1 and e.slug = $2`;

export async function findEventBySlug(db: PreparedStatements, organizationId: string, slug: string, at: Date = new Date()): Promise<EventView | null> {
  const [row] = await db.query<EventView>(BY_SLUG, [organizationId, slug, at]);
  return row ?? null;
}

/** The stored-row condition for a status as clients see it (COMPLETED is derived from end_date). */
function statusCondition(status: EventStatus | null | undefined, parameter: () => string): string | undefined {
  switch (status) {
    case undefined:
    case null:
      return undefined;
    case EventStatus.PUBLISHED:
      return `e.status = 'PUBLISHED' and e.end_date > now()`;
    case EventStatus.COMPLETED:
      return `(e.status = 'COMPLETED' or (e.status = 'PUBLISHED' and e.end_date <= now()))`;
    default:
      return `e.status = ${parameter()}`;
  }
}

/** Each order: its sort column and direction (ties broken by id in the same direction), on an index (organization_id, column, id). */
const ORDER: Record<EventOrder, { column: string; descending: boolean }> = {
  [EventOrder.CREATED_AT_DESC]: { column: 'e.created_at', descending: true },
  [EventOrder.CREATED_AT_ASC]: { column: 'e.created_at', descending: false },
  [EventOrder.START_DATE_ASC]: { column: 'e.start_date', descending: false },
  [EventOrder.START_DATE_DESC]: { column: 'e.start_date', descending: true },
};

/** `%` and `_` in a search are literal characters, not patterns. */
const likePattern = (search: string): string => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Where a page starts: after a cursor's position (the sort key in microseconds since the epoch, and
 * the id of the previous page's last row), or at a page number.
 */
export type EventPageStart = { readonly after: ListPosition } | { readonly page: number };

/** Events published and past their end read as COMPLETED (D3): counted through events_published_end_date_index. */
const ENDED_PUBLISHED = `(select count(*) from events e where e.organization_id = $1 and e.status = 'PUBLISHED' and e.end_date <= now())`;
// An organization's kept counts are spread over a few rows (the migration's shards): their sum.
const KEPT = (columns: string) => `coalesce((select sum(${columns}) from event_counts k where k.organization_id = $1), 0)`;

/**
 * The total of a list in constant time where the kept counts answer it (event_counts, D25): no filter,
 * or a status alone (PUBLISHED and COMPLETED also count the published events past their end, on an
 * index of those only). Other filters (search, start window) count the matching rows.
 */
function totalSql(query: EventListQuery, where: string): string {
  const filtered = query.startsAfter != null || query.startsBefore != null || (query.search != null && query.search !== '');
  if (filtered) return `select count(*)::int as total from events e where ${where}`;
  switch (query.status) {
    case undefined:
    case null:
      return `select ${KEPT('k.draft + k.published + k.cancelled + k.completed')}::int as total`;
    case EventStatus.DRAFT:
      return `select ${KEPT('k.draft')}::int as total`;
    case EventStatus.CANCELLED:
      return `select ${KEPT('k.cancelled')}::int as total`;
    case EventStatus.PUBLISHED:
      return `select (${KEPT('k.published')} - ${ENDED_PUBLISHED})::int as total`;
    case EventStatus.COMPLETED:
      return `select (${KEPT('k.completed')} + ${ENDED_PUBLISHED})::int as total`;
    default:
      return `select count(*)::int as total from events e where ${where}`;
  }
}

/**
 * One page and the total in a single statement, whatever the page size: the total and the page are
 * joined laterally, so a page past the end still returns one row carrying the total. The page seeks
 * its first row on the order's index: after a cursor's position, or at the row a page number skips
 * to (found on the same index, an index-only scan from the nearer end), so a page costs the same at
 * any depth for cursors and reads only index entries for the rows a page number skips. One row more than the page
 * says whether another page follows (`next`: the position of the page's last row, for its cursor).
 * The SQL text depends only on which filters are present and how the page starts (a few fixed
 * statements), never on their values.
 */
export async function listEvents(
  db: PreparedStatements,
  organizationId: string,
  query: EventListQuery,
  start: EventPageStart = { page: query.page },
  at: Date = new Date(),
): Promise<{ events: EventView[]; total: number; next: ListPosition | null }> {
  const values: unknown[] = [organizationId];
  const parameter = (value?: unknown) => () => {
    values.push(value);
    return `$${values.length}`;
  };
  const conditions = ['e.organization_id = $1'];
  const status = statusCondition(query.status, parameter(query.status));
  if (status) conditions.push(status);
  if (query.startsAfter != null) conditions.push(`e.start_date > ${parameter(query.startsAfter)()}::timestamptz`);
  if (query.startsBefore != null) conditions.push(`e.start_date < ${parameter(query.startsBefore)()}::timestamptz`);
  if (query.search != null && query.search !== '') conditions.push(`e.title ilike ${parameter(likePattern(query.search))()}`);
  const where = conditions.join(' and ');
  const { column, descending } = ORDER[query.orderBy ?? EventOrder.CREATED_AT_DESC];
  const direction = descending ? 'desc' : 'asc';
  const orderBy = `${column} ${direction}, e.id ${direction}`;
  const limit = parameter(query.limit + 1)();
  let anchor: string | undefined;
  let seek = '';
  if ('after' in start) {
    const [sortKey, id] = start.after;
    const at = `'epoch'::timestamptz + ${parameter(sortKey)()}::bigint * interval '1 microsecond'`;
    seek = ` and (${column}, e.id) ${descending ? '<' : '>'} (${at}, ${parameter(id)()}::varchar)`;
  } else if (start.page > 1) {
    // The first row of the page, found on the order's index (index-only) without reading the rows it
    // skips, from whichever end of the list is nearer: the total is known first, so a page in the
    // second half skips total − 1 − offset entries from the other end (the last page costs as the first).
    const offset = parameter((start.page - 1) * query.limit)();
    const reverse = descending ? 'asc' : 'desc';
    anchor = `(select k, id from (select ${column} as k, e.id from events e where ${where} and ${offset} <= c.total / 2
          order by ${orderBy} offset ${offset} limit 1) near
        union all
        select k, id from (select ${column} as k, e.id from events e where ${where} and ${offset} > c.total / 2 and ${offset} < c.total
          order by ${column} ${reverse}, e.id ${reverse} offset greatest(c.total - 1 - ${offset}, 0) limit 1) far) s`;
    seek = ` and (${column}, e.id) ${descending ? '<=' : '>='} (s.k, s.id)`;
  }
  const page = `select ${eventColumns(`${parameter(at)()}::timestamptz`)}, (extract(epoch from ${column}) * 1000000)::bigint::text as "sortKey"
      from events e where ${where}${seek} order by ${orderBy} limit ${limit}`;
  // A page number's first row comes first (one row), then the page seeks from it on the index.
  const pageFrom = anchor ? `select x.* from ${anchor} cross join lateral (${page}) x` : page;
  const text = `select c.total, p.* from (${totalSql(query, where)}) c left join lateral (${pageFrom}) p on true`;
  const rows = await db.query<EventView & { total: number; sortKey: string }>(text, values);
  // Past the last page, the lateral join leaves one row of nulls next to the total.
  const found = rows.length === 1 && rows[0].id === null ? [] : rows;
  const events = found.length > query.limit ? found.slice(0, query.limit) : found;
  const last = events.at(-1);
  const next: ListPosition | null = found.length > query.limit && last ? [last.sortKey, last.id] : null;
  return { events, total: rows[0]?.total ?? 0, next };
}

const TICKET_TYPES_OF_EVENTS = `select t.event_id as "eventId", t.id, t.name, t.price::float8 as price, t.currency, t.quantity, ${soldSql('t')} as sold,
    ${typeHeldSql('t', '$2::timestamptz')} as held
  from ticket_types t where t.event_id = any($1::text[]) order by t.created_at, t.id`;

/** The ticket types of several events (of one organization's page), with their counts (holds judged at `at`), in one statement. */
export async function ticketTypesOfEvents(db: PreparedStatements, eventIds: readonly string[], at: Date = new Date()): Promise<Map<string, TicketTypeView[]>> {
  const rows = await db.query<TicketTypeView & { eventId: string }>(TICKET_TYPES_OF_EVENTS, [eventIds, at]);
  const byEvent = new Map<string, TicketTypeView[]>(eventIds.map((id) => [id, []]));
  for (const { eventId, ...ticketType } of rows) byEvent.get(eventId)?.push(ticketType);
  return byEvent;
}

// The partial index bookings_checked_in_event_index holds exactly the checked-in rows of each event.
const CHECKED_IN_OF_EVENTS = `select b.event_id as "eventId", count(*)::int as count
  from bookings b where b.event_id = any($1::text[]) and b.checked_in_at is not null and b.status = 'CONFIRMED' group by b.event_id`;

/** How many CONFIRMED bookings of each event are checked in (D22), for several events in one statement. */
export async function checkedInCountsOfEvents(db: PreparedStatements, eventIds: readonly string[]): Promise<Map<string, number>> {
  const rows = await db.query<{ eventId: string; count: number }>(CHECKED_IN_OF_EVENTS, [eventIds]);
  return new Map(rows.map((row) => [row.eventId, row.count]));
}

/** The id of the organization's event `slug` (one statement), or null. */
export async function idBySlugOrNull(em: EntityManager, organizationId: string, slug: string): Promise<{ id: string; slots: number } | null> {
  const [row] = await executePrepared<{ id: string; slots: number }>(em, 'select id, slots from events where organization_id = ? and slug = ?', [organizationId, slug]);
  return row ?? null;
}

/** The id of the organization's event `slug` (one statement), or EVENT_NOT_FOUND. */
export async function idBySlug(em: EntityManager, organizationId: string, slug: string): Promise<string> {
  const event = await em.findOne(EventEntity, { organization: organizationId, slug });
  if (!event) throw AppError.eventNotFound(slug);
  return event.id;
}
