import type { ListPosition } from '../../platform/db/list-position';
import { queryStatement, type PreparedStatements } from '../../platform/db/prepared-statements';
import { sqlStatements } from '../../platform/db/sql-statement';
import { EventOrder } from './event-order';
import { EventStatus } from './event-status';
import { eventColumns, type EventListQuery, type EventView } from './event.read-repository';

const sql = sqlStatements(__filename);

/*
 * A page of an organization's events (D25): its filters, its order, where it starts (a page number or
 * a cursor) and its total, in one statement. The event's columns are the read repository's.
 */

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
  const filtered = query.startsAfter || query.startsBefore || query.search || query.series;
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
  /** Only a series' occurrences (D28): at most 1,000 rows, counted on the series' index. */
  readonly series: boolean;
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
  /** A series' slug. */
  series: string | null;
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
    if (shape.series) conditions.push(`e.series_id = (select s.id from series s where s.organization_id = :organizationId and s.slug = :series)`);
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
      `${shape.status ?? '-'}${shape.startsAfter ? ',startsAfter' : ''}${shape.startsBefore ? ',startsBefore' : ''}${shape.search ? ',search' : ''}${shape.series ? ',series' : ''},${shape.orderBy},${shape.start}`,
    examples: () => {
      const plain: ListShape = { status: null, startsAfter: false, startsBefore: false, search: false, series: false, orderBy: EventOrder.CREATED_AT_DESC, start: 'first' };
      return {
        'first page': plain,
        'page number, start date ascending': { ...plain, orderBy: EventOrder.START_DATE_ASC, start: 'page' },
        'cursor, PUBLISHED': { ...plain, status: EventStatus.PUBLISHED, start: 'after' },
        'COMPLETED, created ascending': { ...plain, status: EventStatus.COMPLETED, orderBy: EventOrder.CREATED_AT_ASC },
        'DRAFT, every filter, page number': { status: EventStatus.DRAFT, startsAfter: true, startsBefore: true, search: true, series: false, orderBy: EventOrder.START_DATE_DESC, start: 'page' },
        "a series' occurrences by start, cursor": { ...plain, series: true, orderBy: EventOrder.START_DATE_ASC, start: 'after' },
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
    series: query.series != null,
    orderBy: query.orderBy ?? EventOrder.CREATED_AT_DESC,
    start: after ? 'after' : 'page' in start && start.page > 1 ? 'page' : 'first',
  });
  const rows = await queryStatement(db, statement, {
    organizationId,
    status: query.status ?? null,
    startsAfter: query.startsAfter ?? null,
    startsBefore: query.startsBefore ?? null,
    search,
    series: query.series ?? null,
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

