import type { ListPosition } from '../../platform/db/list-position';
import { queryStatement, type PreparedStatements } from '../../platform/db/prepared-statements';
import { sqlStatements } from '../../platform/db/sql-statement';
import type { SeriesTicketType } from './series.entity';

const sql = sqlStatements(__filename);

/*
 * Series as the API reads them (D28), fixed SQL shaped for the GraphQL type: one series, a page of the
 * organization's series (newest first; its total kept by series_counts, D25), and what Event.series and
 * Series.occurrenceCount ask for a whole response at once. Organization first; nothing crosses it.
 */

/** A series as the API shows it (the fields of the Series type). */
export interface SeriesView {
  id: string;
  slug: string;
  title: string;
  description: string | null;
  venue: string | null;
  venueAddress: string | null;
  coverImage: string | null;
  capacity: number | null;
  ticketTypes: SeriesTicketType[];
  timezone: string;
  firstStart: string;
  durationMinutes: number;
  recurrence: string[];
  version: number;
  occurrenceCount: number;
  organizationId: string;
  createdAt: string;
  updatedAt: string;
}

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const SERIES_COLUMNS = `s.id, s.slug, s.title, s.description, s.venue, s.venue_address as "venueAddress", s.cover_image as "coverImage", s.capacity,
  s.ticket_types as "ticketTypes", s.timezone, s.first_start as "firstStart", s.duration_minutes as "durationMinutes", s.recurrence, s.version,
  (select count(*)::int from events e where e.organization_id = s.organization_id and e.series_id = s.id) as "occurrenceCount",
  s.organization_id as "organizationId", ${iso('s.created_at')} as "createdAt", ${iso('s.updated_at')} as "updatedAt"`;

const BY_SLUG = sql.statement<{ organizationId: string; slug: string }, SeriesView>(
  'seriesViewBySlug',
  `select ${SERIES_COLUMNS} from series s where s.organization_id = :organizationId and s.slug = :slug`,
);

export async function findSeriesBySlug(db: PreparedStatements, organizationId: string, slug: string): Promise<SeriesView | null> {
  const [row] = await queryStatement(db, BY_SLUG, { organizationId, slug });
  return row ?? null;
}

/**
 * A page and the total in one statement: the total from the kept counts, the page seeking its first
 * row on (organization, created_at, id) after a cursor's position, or skipping to a page number.
 */
const PAGE = sql.statement<
  { organizationId: string; limit: number; offset: number; sortKey: string | null; afterId: string | null },
  SeriesView & { total: number; sortKey: string }
>(
  'seriesPage',
  `select c.total, p.* from (select coalesce((select total from series_counts k where k.organization_id = :organizationId), 0)::int as total) c
     left join lateral (
       select ${SERIES_COLUMNS}, (extract(epoch from s.created_at) * 1000000)::bigint::text as "sortKey"
         from series s
        where s.organization_id = :organizationId
          and (:sortKey::bigint is null or (s.created_at, s.id) < ('epoch'::timestamptz + :sortKey::bigint * interval '1 microsecond', :afterId::varchar))
        order by s.created_at desc, s.id desc limit :limit offset :offset) p on true`,
);

export async function listSeries(
  db: PreparedStatements,
  organizationId: string,
  query: { page: number; limit: number; after: ListPosition | null },
): Promise<{ series: SeriesView[]; total: number; next: ListPosition | null }> {
  const { after } = query;
  const rows = await queryStatement(db, PAGE, {
    organizationId,
    limit: query.limit + 1,
    offset: after ? 0 : (query.page - 1) * query.limit,
    sortKey: after?.[0] ?? null,
    afterId: after?.[1] ?? null,
  });
  const found = rows.filter((row) => row.id != null);
  const series = found.slice(0, query.limit);
  const last = series.at(-1);
  return { series: series.map(({ total: _total, sortKey: _sortKey, ...view }) => view), total: rows[0]?.total ?? 0, next: found.length > query.limit && last ? [last.sortKey, last.id] : null };
}

const REFS = sql.statement<{ organizationId: string; ids: readonly string[] }, { id: string; slug: string }>(
  'seriesRefs',
  'select id, slug from series where organization_id = :organizationId and id = any(:ids::text[])',
);

/** id and slug of several series (Event.series of a whole response), in one statement. */
export async function seriesRefs(db: PreparedStatements, organizationId: string, ids: readonly string[]): Promise<Map<string, { id: string; slug: string }>> {
  const rows = await queryStatement(db, REFS, { organizationId, ids });
  return new Map(rows.map((row) => [row.id, row]));
}

const COUNTS = sql.statement<{ organizationId: string; ids: readonly string[] }, { id: string; count: number }>(
  'occurrenceCounts',
  `select e.series_id as id, count(*)::int as count from events e
    where e.organization_id = :organizationId and e.series_id = any(:ids::text[]) group by e.series_id`,
);

/** How many occurrences each of several series has, in one statement. */
export async function occurrenceCounts(db: PreparedStatements, organizationId: string, ids: readonly string[]): Promise<Map<string, number>> {
  const rows = await queryStatement(db, COUNTS, { organizationId, ids });
  return new Map(rows.map((row) => [row.id, row.count]));
}
