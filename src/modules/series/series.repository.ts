import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executeStatement } from '../../platform/db/prepared-statements';
import { fragment, sqlStatements } from '../../platform/db/sql-statement';
import { byMessages, exampleOutbox, noteOutbox, OUTBOX_WRITTEN, type OutboxOf, type WithMessages } from '../event/event-change-statements';
import { lockEventSlots, registrationCountSql, storedHeldSql } from '../inventory/inventory.repository';
import type { Occurrence } from './series-planner';
import { asSeriesRow, SERIES_ROW, occurrencesInsertSql, textArray, type OccurrencesParams, type SeriesRow, type SeriesRowAsText } from './series-rows';
import { parseLocalDateTime } from './series-time';

const sql = sqlStatements(__filename);

/*
 * The series' statements (D28), besides applying a plan (series-changes.repository.ts): a new series
 * with all its occurrences, the reads and locks of a change, a series' deletion. The organization is
 * always the first argument after the entity manager: another organization's series is not found.
 *
 * Lock order, everywhere: the occurrences' event rows (by id), their inventory slots, then the
 * series' row, the order a booking's statement (event row, then the series' version: the trigger of
 * Migration20261130020000_series) takes them in.
 */

/** The new series row's values. */
export interface NewSeries extends Omit<SeriesRow, 'organization' | 'version' | 'updatedAt' | 'ticketTypes'> {
  ticketTypes: string;
}

type InsertSeriesParams = OccurrencesParams & {
  seriesId: string;
  slug: string;
  ticketTypes: string;
  firstStart: string;
  durationMinutes: number;
  recurrence: string;
  messages: readonly unknown[];
};

/**
 * A new series and every occurrence with its ticket types, as one statement (the unique indexes decide
 * a taken series slug or occurrence slug), with its message and audit entry (gated on the series row).
 * The organization's event counts follow through their triggers, in the same statement.
 */
const INSERT_SERIES = sql.family<WithMessages, InsertSeriesParams, { occurrences: number; outbox_written: boolean }>(
  'insertSeries',
  ({ messages }) => `with created as (
       insert into series (id, organization_id, slug, title, description, venue, venue_address, cover_image, capacity, ticket_types, timezone,
                           first_start, duration_minutes, recurrence, version, created_at, updated_at)
       values (:seriesId, :organizationId, :slug, :title, :description, :venue, :venueAddress, :coverImage, :capacity::int, :ticketTypes::text::jsonb, :timezone,
               :firstStart, :durationMinutes, :recurrence::text[], 1, :createdAt, :createdAt)
       returning id, organization_id),
     ${occurrencesInsertSql('(select id from created)')},
     ${fragment('messages', messages)}
     select (select count(*) from occurrences)::int as occurrences, ${OUTBOX_WRITTEN}`,
  { ...byMessages, examples: () => ({ 'series.created': { messages: exampleOutbox('series.created', 'created') } }) },
);

export async function insertSeries(em: EntityManager, series: NewSeries, occurrences: OccurrencesParams, outbox: OutboxOf): Promise<number> {
  const messages = outbox('created');
  const [row] = await executeStatement(em, INSERT_SERIES({ messages: messages.sql }), {
    ...occurrences,
    seriesId: series.id,
    slug: series.slug,
    ticketTypes: series.ticketTypes,
    firstStart: series.firstStart,
    durationMinutes: series.durationMinutes,
    recurrence: textArray(series.recurrence),
    messages: messages.bindings,
  });
  noteOutbox(em, row);
  return row.occurrences;
}

const SERIES_SLUG_TAKEN = sql.statement<{ organizationId: string; slug: string }, { taken: boolean }>(
  'seriesSlugTaken',
  'select exists (select 1 from series where organization_id = :organizationId and slug = :slug) as taken',
);

export async function seriesSlugTaken(em: EntityManager, organizationId: string, slug: string): Promise<boolean> {
  const [row] = await executeStatement(em, SERIES_SLUG_TAKEN, { organizationId, slug });
  return row.taken;
}

const SLUGS_TAKEN = sql.statement<{ organizationId: string; slugs: string; except: string }, { slug: string }>(
  'eventSlugsTaken',
  `select slug from events where organization_id = :organizationId and slug = any(:slugs::text[]) and not (id = any(:except::text[]))`,
);

/** Which of `slugs` events of the organization have, other than the events `except`. */
export async function eventSlugsTaken(em: EntityManager, organizationId: string, slugs: readonly string[], except: readonly string[] = []): Promise<Set<string>> {
  if (slugs.length === 0) return new Set();
  const rows = await executeStatement(em, SLUGS_TAKEN, { organizationId, slugs: textArray(slugs), except: textArray(except) });
  return new Set(rows.map((row) => row.slug));
}

const SERIES_BY_SLUG = sql.statement<{ organizationId: string; slug: string }, SeriesRowAsText>(
  'seriesBySlug',
  `select ${SERIES_ROW} from series s where s.organization_id = :organizationId and s.slug = :slug`,
);

/** The organization's series `slug` as a change reads it (no lock), or null. */
export async function seriesBySlug(em: EntityManager, organizationId: string, slug: string): Promise<SeriesRow | null> {
  const [row] = await executeStatement(em, SERIES_BY_SLUG, { organizationId, slug });
  return row ? asSeriesRow(row) : null;
}

const LOCK_SERIES = sql.statement<{ organizationId: string; id: string }, SeriesRowAsText>(
  'lockSeries',
  `select ${SERIES_ROW} from series s where s.organization_id = :organizationId and s.id = :id for update`,
);

/** The series' row, locked (after its occurrences'), or null when it was deleted meanwhile. */
export async function lockSeries(em: EntityManager, organizationId: string, id: string): Promise<SeriesRow | null> {
  const [row] = await executeStatement(em, LOCK_SERIES, { organizationId, id });
  return row ? asSeriesRow(row) : null;
}

/** An occurrence as a change reads it: the planner's fields, and what its application needs. */
export interface OccurrenceRow extends Occurrence {
  status: string;
  slots: number;
}

type OccurrenceRowAsText = Omit<OccurrenceRow, 'key'> & { key: string };

const OCCURRENCE_COLUMNS = `e.id, e.slug, to_char(e.occurrence_key, 'YYYY-MM-DD"T"HH24:MI:SS') as key, (extract(epoch from e.start_date) * 1000)::float8 as start,
  (extract(epoch from e.end_date) * 1000)::float8 as "end", e.detached, e.title, e.description, e.venue, e.venue_address as "venueAddress",
  e.cover_image as "coverImage", e.capacity, e.timezone, e.status, e.slots,
  exists (select 1 from bookings b where b.event_id = e.id and b.status = 'CONFIRMED') as booked,
  (${registrationCountSql('e')} + ${storedHeldSql('e')})::int as "seatsTaken"`;

const OCCURRENCES = sql.statement<{ organizationId: string; seriesId: string }, OccurrenceRowAsText>(
  'occurrencesOfSeries',
  `select ${OCCURRENCE_COLUMNS} from events e where e.organization_id = :organizationId and e.series_id = :seriesId order by e.id`,
);

// Locked in id order: two changes of one series wait for each other instead of deadlocking.
const LOCK_OCCURRENCES = sql.statement<{ organizationId: string; seriesId: string }, OccurrenceRowAsText>(
  'lockOccurrencesOfSeries',
  `select ${OCCURRENCE_COLUMNS} from events e where e.organization_id = :organizationId and e.series_id = :seriesId order by e.id for no key update of e`,
);

const asOccurrence = (row: OccurrenceRowAsText): OccurrenceRow => ({ ...row, key: parseLocalDateTime(row.key)! });

/**
 * The series' occurrences. `lock`: their rows locked against bookings and changes (a row-mode
 * booking locks the event's row), then the slots of those whose inventory is split (src/modules/
 * inventory/: their bookings take no lock on the row), then read again, so that "has bookings" holds
 * until the transaction ends.
 */
export async function occurrencesOf(em: EntityManager, organizationId: string, seriesId: string, lock: boolean): Promise<OccurrenceRow[]> {
  const rows = (await executeStatement(em, lock ? LOCK_OCCURRENCES : OCCURRENCES, { organizationId, seriesId })).map(asOccurrence);
  const slotted = rows.filter((row) => row.slots > 0);
  if (!lock || slotted.length === 0) return rows;
  for (const row of slotted) await lockEventSlots(em, row.id);
  return (await executeStatement(em, OCCURRENCES, { organizationId, seriesId })).map(asOccurrence);
}

const DELETE_SERIES = sql.family<WithMessages, { organizationId: string; seriesId: string; messages: readonly unknown[] }, { deleted: number; outbox_written: boolean }>(
  'deleteSeries',
  ({ messages }) => `with occurrences as (
       delete from events e where e.organization_id = :organizationId and e.series_id = :seriesId
          and not exists (select 1 from bookings b where b.event_id = e.id and b.status = 'CONFIRMED')
       returning e.id),
     gone as (
       delete from series s where s.organization_id = :organizationId and s.id = :seriesId
          and not exists (select 1 from events e where e.organization_id = :organizationId and e.series_id = :seriesId and e.id not in (select id from occurrences))
       returning s.id, s.organization_id),
     ${fragment('messages', messages)}
     select (select count(*) from gone)::int as deleted, ${OUTBOX_WRITTEN}`,
  { ...byMessages, examples: () => ({ 'series.deleted': { messages: exampleOutbox('series.deleted', 'gone') } }) },
);

/**
 * Deletes the series and its occurrences (their ticket types and cancelled or held bookings with
 * them, ON DELETE CASCADE), with its message and audit entry gated on the series' row: the caller
 * locked the occurrences and found none booked. Returns whether it deleted it.
 */
export async function deleteSeriesRow(em: EntityManager, organizationId: string, seriesId: string, outbox: OutboxOf): Promise<boolean> {
  const messages = outbox('gone');
  const [row] = await executeStatement(em, DELETE_SERIES({ messages: messages.sql }), { organizationId, seriesId, messages: messages.bindings });
  noteOutbox(em, row);
  return row.deleted === 1;
}

const OCCURRENCE_COUNT = sql.statement<{ organizationId: string; seriesId: string }, { count: number }>(
  'occurrenceCount',
  'select count(*)::int as count from events where organization_id = :organizationId and series_id = :seriesId',
);

/** How many occurrences the series has (on the series' index). */
export async function occurrenceCount(em: EntityManager, organizationId: string, seriesId: string): Promise<number> {
  const [row] = await executeStatement(em, OCCURRENCE_COUNT, { organizationId, seriesId });
  return row.count;
}

/** Whether a statement failed on a unique index (a slug taken by a concurrent change). */
export const isUniqueViolation = (error: unknown): boolean => error instanceof UniqueConstraintViolationException;
