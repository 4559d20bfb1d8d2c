import type { EntityManager } from '@mikro-orm/postgresql';
import { executeStatement } from '../../platform/db/prepared-statements';
import { sqlStatements } from '../../platform/db/sql-statement';
import { lockEventPool, reshareRoom } from '../inventory/inventory.repository';
import type { PlanMove, PlanUpdate, TemplateFields } from './series-planner';
import type { OccurrenceRow } from './series.repository';
import { booleanArray, instantArray, keyText, occurrencesInsertSql, textArray, type OccurrencesParams, type SeriesRow } from './series-rows';

const sql = sqlStatements(__filename);

/*
 * A plan applied (D28), statement by statement, in the change's transaction, after updateSeries
 * locked the occurrences and the series (series.repository.ts) and found the plan its preview gave.
 * Each statement states its rows by id; one that finds fewer than the plan names means the state is
 * not the one planned on: the caller rolls everything back (SERIES_CHANGED). Order: deletes, then
 * moves (their slugs set aside first, so that two dates can trade slugs), updates, new occurrences.
 */

const DELETE_OCCURRENCES = sql.statement<{ organizationId: string; seriesId: string; ids: string }, { id: string }>(
  'deleteOccurrences',
  `delete from events e where e.organization_id = :organizationId and e.series_id = :seriesId and e.id = any(:ids::text[])
      and not exists (select 1 from bookings b where b.event_id = e.id and b.status = 'CONFIRMED')
   returning e.id`,
);

/** Deletes the occurrences `ids` (none with confirmed bookings); the number deleted. */
export async function deleteOccurrences(em: EntityManager, organizationId: string, seriesId: string, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  return (await executeStatement(em, DELETE_OCCURRENCES, { organizationId, seriesId, ids: textArray(ids) })).length;
}

const SET_SLUGS_ASIDE = sql.statement<{ organizationId: string; ids: string }, { id: string }>(
  'setOccurrenceSlugsAside',
  // A slug no event can have (slugs are lower-case letters, digits and hyphens), unique by the id.
  `update events set slug = '~' || id where organization_id = :organizationId and id = any(:ids::text[]) returning id`,
);

/** The template's values (the same for every row of a statement) and whether each row takes the capacity. */
type TemplateParams = Omit<TemplateFields, 'capacity'> & { capacity: number | null; setCapacity: string; updatedAt: Date };

const TEMPLATE_SET = `title = :title, description = :description, venue = :venue, venue_address = :venueAddress, cover_image = :coverImage,
       timezone = :timezone, capacity = case when r.set_capacity then :capacity::int else e.capacity end, updated_at = :updatedAt`;

const MOVE_OCCURRENCES = sql.statement<TemplateParams & { organizationId: string; seriesId: string; ids: string; slugs: string; starts: string; ends: string; keys: string }, { id: string }>(
  'moveOccurrences',
  `update events e set slug = r.slug, start_date = r.start_date, end_date = r.end_date, occurrence_key = r.occurrence_key, ${TEMPLATE_SET}
     from unnest(:ids::text[], :slugs::text[], :starts::timestamptz[], :ends::timestamptz[], :keys::timestamp[], :setCapacity::boolean[])
          as r(id, slug, start_date, end_date, occurrence_key, set_capacity)
    where e.organization_id = :organizationId and e.series_id = :seriesId and e.id = r.id
   returning e.id`,
);

const UPDATE_OCCURRENCES = sql.statement<TemplateParams & { organizationId: string; seriesId: string; ids: string; ends: string }, { id: string }>(
  'updateOccurrences',
  `update events e set end_date = r.end_date, ${TEMPLATE_SET}
     from unnest(:ids::text[], :ends::timestamptz[], :setCapacity::boolean[]) as r(id, end_date, set_capacity)
    where e.organization_id = :organizationId and e.series_id = :seriesId and e.id = r.id
   returning e.id`,
);

const templateParams = (template: TemplateFields, entries: ReadonlyArray<{ fields: readonly string[] }>, updatedAt: Date): TemplateParams => ({
  title: template.title,
  description: template.description,
  venue: template.venue,
  venueAddress: template.venueAddress,
  coverImage: template.coverImage,
  timezone: template.timezone,
  capacity: template.capacity,
  setCapacity: booleanArray(entries.map((entry) => entry.fields.includes('capacity'))),
  updatedAt,
});

/** Moves the occurrences of `moves` (their slugs set aside first); the number moved. */
export async function moveOccurrences(em: EntityManager, organizationId: string, seriesId: string, moves: readonly PlanMove[], template: TemplateFields, at: Date): Promise<number> {
  if (moves.length === 0) return 0;
  const ids = textArray(moves.map((move) => move.eventId));
  await executeStatement(em, SET_SLUGS_ASIDE, { organizationId, ids });
  const rows = await executeStatement(em, MOVE_OCCURRENCES, {
    ...templateParams(template, moves, at),
    organizationId,
    seriesId,
    ids,
    slugs: textArray(moves.map((move) => move.toSlug)),
    starts: instantArray(moves.map((move) => move.to)),
    ends: instantArray(moves.map((move) => move.end)),
    keys: textArray(moves.map((move) => keyText(move.key))),
  });
  return rows.length;
}

/** Applies the template (and the new end) to the occurrences of `updates`; the number updated. */
export async function updateOccurrences(em: EntityManager, organizationId: string, seriesId: string, updates: readonly PlanUpdate[], template: TemplateFields, at: Date): Promise<number> {
  if (updates.length === 0) return 0;
  const rows = await executeStatement(em, UPDATE_OCCURRENCES, {
    ...templateParams(template, updates, at),
    organizationId,
    seriesId,
    ids: textArray(updates.map((update) => update.eventId)),
    ends: instantArray(updates.map((update) => update.end)),
  });
  return rows.length;
}

/**
 * An occurrence whose inventory is split into slots (published with a large capacity) and whose
 * capacity changed: what is left is split again under the locks of every slot (as updateEvent does).
 */
export async function reshareCapacity(em: EntityManager, occurrences: readonly OccurrenceRow[], capacity: number | null): Promise<void> {
  for (const occurrence of occurrences) {
    if (occurrence.slots === 0) continue;
    const pool = await lockEventPool(em, occurrence.id);
    await reshareRoom(em, { event: occurrence.id }, pool.slots, capacity === null ? null : capacity - pool.registrationCount);
  }
}

const INSERT_OCCURRENCES = sql.statement<OccurrencesParams & { seriesId: string }, { created: number }>(
  'insertOccurrences',
  `with ${occurrencesInsertSql(':seriesId')}
   select count(*)::int as created from occurrences`,
);

/** New occurrences of an existing series; the number made. */
export async function insertOccurrences(em: EntityManager, seriesId: string, params: OccurrencesParams): Promise<number> {
  const [row] = await executeStatement(em, INSERT_OCCURRENCES, { ...params, seriesId });
  return row.created;
}

type SeriesWrite = Omit<SeriesRow, 'organization' | 'createdAt' | 'ticketTypes' | 'recurrence'> & { organizationId: string; ticketTypes: string; recurrence: string };

const UPDATE_SERIES = sql.statement<SeriesWrite, { id: string }>(
  'updateSeriesRow',
  `update series set slug = :slug, title = :title, description = :description, venue = :venue, venue_address = :venueAddress, cover_image = :coverImage,
                     capacity = :capacity::int, ticket_types = :ticketTypes::text::jsonb, timezone = :timezone, first_start = :firstStart,
                     duration_minutes = :durationMinutes, recurrence = :recurrence::text[], version = :version, updated_at = :updatedAt
    where organization_id = :organizationId and id = :id
   returning id`,
);

const INSERT_SPLIT = sql.statement<SeriesWrite & { createdAt: Date; moved: string }, { id: string }>(
  'insertSplitSeries',
  `with made as (
       insert into series (id, organization_id, slug, title, description, venue, venue_address, cover_image, capacity, ticket_types, timezone,
                           first_start, duration_minutes, recurrence, version, created_at, updated_at)
       values (:id, :organizationId, :slug, :title, :description, :venue, :venueAddress, :coverImage, :capacity::int, :ticketTypes::text::jsonb, :timezone,
               :firstStart, :durationMinutes, :recurrence::text[], :version, :createdAt, :updatedAt)
       returning id)
   update events e set series_id = (select id from made)
    where e.organization_id = :organizationId and e.id = any(:moved::text[])
   returning e.id`,
);

const seriesWrite = (row: SeriesRow): SeriesWrite => ({
  id: row.id,
  organizationId: row.organization,
  slug: row.slug,
  title: row.title,
  description: row.description,
  venue: row.venue,
  venueAddress: row.venueAddress,
  coverImage: row.coverImage,
  capacity: row.capacity,
  ticketTypes: JSON.stringify(row.ticketTypes),
  timezone: row.timezone,
  firstStart: row.firstStart,
  durationMinutes: row.durationMinutes,
  recurrence: textArray(row.recurrence),
  version: row.version,
  updatedAt: row.updatedAt,
});

/** Writes the series' row as `row` (the caller holds its lock). */
export async function writeSeries(em: EntityManager, row: SeriesRow): Promise<void> {
  await executeStatement(em, UPDATE_SERIES, seriesWrite(row));
}

/** The later part of a split series (FOLLOWING): the new series' row, and the occurrences `moved` now its own. */
export async function insertSplitSeries(em: EntityManager, row: SeriesRow, moved: readonly string[]): Promise<number> {
  return (await executeStatement(em, INSERT_SPLIT, { ...seriesWrite(row), createdAt: row.createdAt, moved: textArray(moved) })).length;
}
