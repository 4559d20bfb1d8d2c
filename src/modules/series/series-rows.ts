import type { EntityManager } from '@mikro-orm/postgresql';
import { SeriesEntity, type SeriesTicketType } from './series.entity';
import type { TemplateFields } from './series-planner';
import { formatLocalDateTime, type Floating } from './series-time';

/*
 * The rows the series statements write and read (series.repository.ts, series-changes.repository.ts),
 * the parameters they take (arrays as PostgreSQL array literals: one binding, however many values),
 * and the managed entity the doors render, built from them without a read after the write.
 */

/** A series row as SeriesEntity's properties (the organization by id). */
export interface SeriesRow extends TemplateFields {
  id: string;
  organization: string;
  slug: string;
  ticketTypes: SeriesTicketType[];
  firstStart: string;
  durationMinutes: number;
  recurrence: string[];
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** The columns of a series row as SeriesRow's (timestamps as ISO text: asSeriesRow makes them dates). */
export const SERIES_ROW = `s.id, s.organization_id as organization, s.slug, s.title, s.description, s.venue, s.venue_address as "venueAddress",
  s.cover_image as "coverImage", s.capacity, s.ticket_types as "ticketTypes", s.timezone, s.first_start as "firstStart",
  s.duration_minutes as "durationMinutes", s.recurrence, s.version, to_json(s.created_at) #>> '{}' as "createdAt", to_json(s.updated_at) #>> '{}' as "updatedAt"`;

export type SeriesRowAsText = Omit<SeriesRow, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string };

export const asSeriesRow = (row: SeriesRowAsText): SeriesRow => ({ ...row, createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) });

/** The managed entity of a series as stored, registered with `em` as loaded (a later flush writes nothing). */
export function managedSeries(em: EntityManager, row: SeriesRow): SeriesEntity {
  return em.merge(SeriesEntity, row, { refresh: true });
}

/** A PostgreSQL array literal of text values. */
export function textArray(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`;
}

/** A PostgreSQL array literal of numbers (null as NULL). */
export const numberArray = (values: ReadonlyArray<number | null>): string => `{${values.map((value) => (value === null ? 'NULL' : String(value))).join(',')}}`;

/** A PostgreSQL array literal of booleans. */
export const booleanArray = (values: readonly boolean[]): string => `{${values.map((value) => (value ? 't' : 'f')).join(',')}}`;

/** A PostgreSQL array literal of instants. */
export const instantArray = (values: readonly number[]): string => `{${values.map((value) => new Date(value).toISOString()).join(',')}}`;

/** A floating time as `timestamp` text (the occurrence's key). */
export const keyText = (key: Floating): string => new Date(key).toISOString().slice(0, 19).replace('T', ' ');

/** The series row's `first_start`: as the API shows it (`2027-03-01T18:00`). */
export const firstStartText = (local: Floating): string => formatLocalDateTime(local);

/** One occurrence to insert: its event's own values (the template's are the statement's scalars). */
export interface NewOccurrence {
  id: string;
  slug: string;
  key: Floating;
  start: number;
  end: number;
}

/** One ticket type of a new occurrence. */
export interface NewOccurrenceTicketType extends SeriesTicketType {
  id: string;
  eventId: string;
  createdAt: Date;
}

/** The parameters of an occurrences insert (occurrencesInsertSql): the template's scalars and the rows' arrays. */
export interface OccurrencesParams {
  organizationId: string;
  title: string;
  description: string | null;
  timezone: string;
  venue: string | null;
  venueAddress: string | null;
  coverImage: string | null;
  capacity: number | null;
  createdAt: Date;
  ids: string;
  slugs: string;
  starts: string;
  ends: string;
  keys: string;
  typeIds: string;
  typeEventIds: string;
  typeNames: string;
  typePrices: string;
  typeCurrencies: string;
  typeQuantities: string;
  typeCreatedAts: string;
}

export function occurrencesParams(
  organizationId: string,
  template: TemplateFields,
  occurrences: readonly NewOccurrence[],
  ticketTypes: readonly NewOccurrenceTicketType[],
  createdAt: Date,
): OccurrencesParams {
  return {
    organizationId,
    title: template.title,
    description: template.description,
    timezone: template.timezone,
    venue: template.venue,
    venueAddress: template.venueAddress,
    coverImage: template.coverImage,
    capacity: template.capacity,
    createdAt,
    ids: textArray(occurrences.map((occurrence) => occurrence.id)),
    slugs: textArray(occurrences.map((occurrence) => occurrence.slug)),
    starts: instantArray(occurrences.map((occurrence) => occurrence.start)),
    ends: instantArray(occurrences.map((occurrence) => occurrence.end)),
    keys: textArray(occurrences.map((occurrence) => keyText(occurrence.key))),
    typeIds: textArray(ticketTypes.map((type) => type.id)),
    typeEventIds: textArray(ticketTypes.map((type) => type.eventId)),
    typeNames: textArray(ticketTypes.map((type) => type.name)),
    typePrices: numberArray(ticketTypes.map((type) => type.price)),
    typeCurrencies: textArray(ticketTypes.map((type) => type.currency)),
    typeQuantities: numberArray(ticketTypes.map((type) => type.quantity)),
    typeCreatedAts: textArray(ticketTypes.map((type) => type.createdAt.toISOString())),
  };
}

/**
 * The CTEs that insert occurrences (events in DRAFT, series `seriesId`: SQL) and their ticket types:
 * `occurrences` (returning the ids) and `occurrence_types`. Two unnests, whatever the number of rows.
 */
export const occurrencesInsertSql = (seriesId: string) => `occurrences as (
       insert into events (id, organization_id, slug, title, description, start_date, end_date, timezone, venue, venue_address, cover_image,
                           status, capacity, registration_count, created_at, updated_at, series_id, occurrence_key)
       select o.id, :organizationId, o.slug, :title, :description, o.start_date, o.end_date, :timezone, :venue, :venueAddress, :coverImage,
              'DRAFT', :capacity::int, 0, :createdAt, :createdAt, ${seriesId}, o.occurrence_key
         from unnest(:ids::text[], :slugs::text[], :starts::timestamptz[], :ends::timestamptz[], :keys::timestamp[])
              as o(id, slug, start_date, end_date, occurrence_key)
       returning id),
     occurrence_types as (
       insert into ticket_types (id, organization_id, event_id, name, price, currency, quantity, sold, created_at)
       select t.id, :organizationId, t.event_id, t.name, t.price, t.currency, t.quantity, 0, t.created_at
         from unnest(:typeIds::text[], :typeEventIds::text[], :typeNames::text[], :typePrices::numeric[], :typeCurrencies::text[],
                     :typeQuantities::int[], :typeCreatedAts::timestamptz[]) as t(id, event_id, name, price, currency, quantity, created_at))`;
