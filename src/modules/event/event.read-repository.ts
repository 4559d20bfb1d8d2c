import type { PreparedReads } from '../../platform/db/prepared-reads';
import { EventOrder } from './event-order';
import { EventStatus } from './event-status';
import { registrationCountSql, soldSql } from '../inventory/inventory.repository';

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
}

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const EVENT_COLUMNS = `
  ${iso('e.created_at')} as "createdAt", ${iso('e.updated_at')} as "updatedAt",
  e.id, e.slug, e.title, e.description,
  ${iso('e.start_date')} as "startDate", ${iso('e.end_date')} as "endDate",
  e.timezone, e.venue, e.venue_address as "venueAddress", e.cover_image as "coverImage",
  case when e.status = 'PUBLISHED' and e.end_date <= now() then 'COMPLETED' else e.status end as status,
  e.capacity, ${registrationCountSql('e')} as "registrationCount", e.organization_id as "organizationId"`;

const TICKET_TYPES_JSON = `
  coalesce((select json_agg(json_build_object(
      'id', t.id, 'name', t.name, 'price', t.price, 'currency', t.currency, 'quantity', t.quantity, 'sold', ${soldSql('t')}
    ) order by t.created_at, t.id) from ticket_types t where t.event_id = e.id), '[]'::json)`;

/** One statement: the event and its ticket types (as JSON), or nothing. */
const BY_SLUG = `select ${EVENT_COLUMNS}, ${TICKET_TYPES_JSON} as "ticketTypes"
  from events e where e.organization_id = $1 and e.slug = $2`;

export async function findEventBySlug(db: PreparedReads, organizationId: string, slug: string): Promise<EventView | null> {
  const [row] = await db.query<EventView>(BY_SLUG, [organizationId, slug]);
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

const ORDER: Record<EventOrder, string> = {
  [EventOrder.CREATED_AT_DESC]: 'e.created_at desc, e.id desc',
  [EventOrder.CREATED_AT_ASC]: 'e.created_at asc, e.id asc',
  [EventOrder.START_DATE_ASC]: 'e.start_date asc, e.id asc',
  [EventOrder.START_DATE_DESC]: 'e.start_date desc, e.id desc',
};

/** `%` and `_` in a search are literal characters, not patterns. */
const likePattern = (search: string): string => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * One page and the total in a single statement, whatever the page size: the count and the page are
 * joined laterally, so a page past the end still returns one row carrying the total. The SQL text
 * depends only on which filters are present (a few fixed statements), never on their values.
 */
export async function listEvents(
  db: PreparedReads,
  organizationId: string,
  query: EventListQuery,
): Promise<{ events: EventView[]; total: number }> {
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
  const limit = parameter(query.limit)();
  const offset = parameter((query.page - 1) * query.limit)();
  const text = `select c.total, p.* from (select count(*)::int as total from events e where ${where}) c
    left join lateral (select ${EVENT_COLUMNS} from events e where ${where}
      order by ${ORDER[query.orderBy ?? EventOrder.CREATED_AT_DESC]} limit ${limit} offset ${offset}) p on true`;
  const rows = await db.query<EventView & { total: number }>(text, values);
  // Past the last page, the lateral join leaves one row of nulls next to the total.
  const events = rows.length === 1 && rows[0].id === null ? [] : rows;
  return { events, total: rows[0]?.total ?? 0 };
}

const TICKET_TYPES_OF_EVENTS = `select t.event_id as "eventId", t.id, t.name, t.price::float8 as price, t.currency, t.quantity, ${soldSql('t')} as sold
  from ticket_types t where t.event_id = any($1::text[]) order by t.created_at, t.id`;

/** The ticket types of several events (of one organization's page), in one statement. */
export async function ticketTypesOfEvents(db: PreparedReads, eventIds: readonly string[]): Promise<Map<string, TicketTypeView[]>> {
  const rows = await db.query<TicketTypeView & { eventId: string }>(TICKET_TYPES_OF_EVENTS, [eventIds]);
  const byEvent = new Map<string, TicketTypeView[]>(eventIds.map((id) => [id, []]));
  for (const { eventId, ...ticketType } of rows) byEvent.get(eventId)?.push(ticketType);
  return byEvent;
}

// The partial index bookings_checked_in_event_index holds exactly the checked-in rows of each event.
const CHECKED_IN_OF_EVENTS = `select b.event_id as "eventId", count(*)::int as count
  from bookings b where b.event_id = any($1::text[]) and b.checked_in_at is not null and b.status = 'CONFIRMED' group by b.event_id`;

/** How many CONFIRMED bookings of each event are checked in (D22), for several events in one statement. */
export async function checkedInCountsOfEvents(db: PreparedReads, eventIds: readonly string[]): Promise<Map<string, number>> {
  const rows = await db.query<{ eventId: string; count: number }>(CHECKED_IN_OF_EVENTS, [eventIds]);
  return new Map(rows.map((row) => [row.eventId, row.count]));
}
