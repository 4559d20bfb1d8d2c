import type { ListPosition } from '../../platform/db/list-position';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import { executeStatement, queryStatement, type PreparedStatements } from '../../platform/db/prepared-statements';
import { sqlStatements } from '../../platform/db/sql-statement';
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
const BY_SLUG = sql.statement<{ organizationId: string; slug: string; at: Date }, EventView>(
  'eventBySlug',
  `select ${eventColumns(':at::timestamptz')}, ${ticketTypesJson(':at::timestamptz')} as "ticketTypes"
  from events e where e.organization_id = :organizationId and e.slug = :slug`,
);

export async function findEventBySlug(db: PreparedStatements, organizationId: string, slug: string, at: Date = new Date()): Promise<EventView | null> {
  const [row] = await queryStatement(db, BY_SLUG, { organizationId, slug, at });
  return row ?? null;
}

/** The stored-row condition for a status as clients see it (COMPLETED is derived from end_date). */
function statusCondition(status: EventStatus | null | undefined): string | undefined {
  switch (status) {
    case undefined:
    case null:
      return undefined;
    case EventStatus.PUBLISHED:
      return `e.status = 'PUBLISHED' and e.end_date > now()`;
    case EventStatus.COMPLETED:
      return `(e.status = 'COMPLETED' or (e.status = 'PUBLISHED' and e.end_date <= now()))`;
    default:
      return `e.status = :status`;
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
const ENDED_PUBLISHED = `(select count(*) from events e where e.organization_id = :organizationId and e.status = 'PUBLISHED' and e.end_date <= now())`;
// An organization's kept counts are spread over a few rows (the migration's shards): their sum.
const KEPT = (columns: string) => `coalesce((select sum(${columns}) from event_counts k where k.organization_id = :organizationId), 0)`;

/**
 * The total of a list in constant time where the kept counts answer it (event_counts, D25): no filter,
 * or a status alone (PUBLISHED and COMPLETED also count the published events past their end, on an
 * index of those only). Other filters (search, start window) count the matching rows.
 */
function totalSql(query: ListShape, where: string): string {
  const filtered = query.startsAfter || query.startsBefore || query.search;
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

/** What the text of a page's statement depends on: which filters are present and how the page starts. */
interface ListShape {
  readonly status: EventStatus | null;
  readonly startsAfter: boolean;
  readonly startsBefore: boolean;
  readonly search: boolean;
  readonly orderBy: EventOrder;
  readonly start: 'first' | 'page' | 'after';
}

interface ListParams {
  organizationId: string;
  status: EventStatus | null;
  startsAfter: Date | null;
  startsBefore: Date | null;
  /** A LIKE pattern (likePattern). */
  search: string | null;
  /** One more than the page (whether another follows). */
  limit: number;
  offset: number | null;
  /** A cursor's position: its sort key (microseconds since the epoch) and id. */
  sortKey: string | null;
  afterId: string | null;
  at: Date;
}

/**
 * One page and the total in a single statement, whatever the page size: the total and the page are
 * joined laterally, so a page past the end still returns one row carrying the total. The page seeks
 * its first row on the order's index: after a cursor's position, or at the row a page number skips
 * to (found on the same index, an index-only scan from the nearer end), so a page costs the same at
 * any depth for cursors and reads only index entries for the rows a page number skips. One row more than the page
 * says whether another page follows (`next`: the position of the page's last row, for its cursor).
 * The SQL text depends only on the ListShape (a few fixed statements), never on the values.
 */
const LIST_PAGE = sql.family<ListShape, ListParams, EventView & { total: number; sortKey: string }>(
  'listEvents',
  (shape) => {
    const conditions = ['e.organization_id = :organizationId'];
    const status = statusCondition(shape.status);
    if (status) conditions.push(status);
    if (shape.startsAfter) conditions.push(`e.start_date > :startsAfter::timestamptz`);
    if (shape.startsBefore) conditions.push(`e.start_date < :startsBefore::timestamptz`);
    if (shape.search) conditions.push(`e.title ilike :search`);
    const where = conditions.join(' and ');
    const { column, descending } = ORDER[shape.orderBy];
    const direction = descending ? 'desc' : 'asc';
    const orderBy = `${column} ${direction}, e.id ${direction}`;
    let anchor: string | undefined;
    let seek = '';
    if (shape.start === 'after') {
      const at = `'epoch'::timestamptz + :sortKey::bigint * interval '1 microsecond'`;
      seek = ` and (${column}, e.id) ${descending ? '<' : '>'} (${at}, :afterId::varchar)`;
    } else if (shape.start === 'page') {
      // The first row of the page, found on the order's index (index-only) without reading the rows it
      // skips, from whichever end of the list is nearer: the total is known first, so a page in the
      // second half skips total − 1 − offset entries from the other end (the last page costs as the first).
      const reverse = descending ? 'asc' : 'desc';
      anchor = `(select k, id from (select ${column} as k, e.id from events e where ${where} and :offset <= c.total / 2
          order by ${orderBy} offset :offset limit 1) near
        union all
        select k, id from (select ${column} as k, e.id from events e where ${where} and :offset > c.total / 2 and :offset < c.total
          order by ${column} ${reverse}, e.id ${reverse} offset greatest(c.total - 1 - :offset, 0) limit 1) far) s`;
      seek = ` and (${column}, e.id) ${descending ? '<=' : '>='} (s.k, s.id)`;
    }
    const page = `select ${eventColumns(':at::timestamptz')}, (extract(epoch from ${column}) * 1000000)::bigint::text as "sortKey"
      from events e where ${where}${seek} order by ${orderBy} limit :limit`;
    // A page number's first row comes first (one row), then the page seeks from it on the index.
    const pageFrom = anchor ? `select x.* from ${anchor} cross join lateral (${page}) x` : page;
    return `select c.total, p.* from (${totalSql(shape, where)}) c left join lateral (${pageFrom}) p on true`;
  },
  {
    key: (shape) =>
      `${shape.status ?? '-'}${shape.startsAfter ? ',startsAfter' : ''}${shape.startsBefore ? ',startsBefore' : ''}${shape.search ? ',search' : ''},${shape.orderBy},${shape.start}`,
    examples: () => {
      const plain: ListShape = { status: null, startsAfter: false, startsBefore: false, search: false, orderBy: EventOrder.CREATED_AT_DESC, start: 'first' };
      return {
        'first page': plain,
        'page number, start date ascending': { ...plain, orderBy: EventOrder.START_DATE_ASC, start: 'page' },
        'cursor, PUBLISHED': { ...plain, status: EventStatus.PUBLISHED, start: 'after' },
        'COMPLETED, created ascending': { ...plain, status: EventStatus.COMPLETED, orderBy: EventOrder.CREATED_AT_ASC },
        'DRAFT, every filter, page number': { status: EventStatus.DRAFT, startsAfter: true, startsBefore: true, search: true, orderBy: EventOrder.START_DATE_DESC, start: 'page' },
        'CANCELLED, search, cursor': { ...plain, status: EventStatus.CANCELLED, search: true, start: 'after' },
      };
    },
  },
);

export async function listEvents(
  db: PreparedStatements,
  organizationId: string,
  query: EventListQuery,
  start: EventPageStart = { page: query.page },
  at: Date = new Date(),
): Promise<{ events: EventView[]; total: number; next: ListPosition | null }> {
  const search = query.search != null && query.search !== '' ? likePattern(query.search) : null;
  const after = 'after' in start ? start.after : null;
  const statement = LIST_PAGE({
    status: query.status ?? null,
    startsAfter: query.startsAfter != null,
    startsBefore: query.startsBefore != null,
    search: search !== null,
    orderBy: query.orderBy ?? EventOrder.CREATED_AT_DESC,
    start: after ? 'after' : 'page' in start && start.page > 1 ? 'page' : 'first',
  });
  const rows = await queryStatement(db, statement, {
    organizationId,
    status: query.status ?? null,
    startsAfter: query.startsAfter ?? null,
    startsBefore: query.startsBefore ?? null,
    search,
    limit: query.limit + 1,
    offset: 'page' in start ? (start.page - 1) * query.limit : null,
    sortKey: after?.[0] ?? null,
    afterId: after?.[1] ?? null,
    at,
  });
  // Past the last page, the lateral join leaves one row of nulls next to the total.
  const found = rows.length === 1 && rows[0].id === null ? [] : rows;
  const events = found.length > query.limit ? found.slice(0, query.limit) : found;
  const last = events.at(-1);
  const next: ListPosition | null = found.length > query.limit && last ? [last.sortKey, last.id] : null;
  return { events, total: rows[0]?.total ?? 0, next };
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
