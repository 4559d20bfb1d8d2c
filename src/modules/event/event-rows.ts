import type { EntityManager } from '@mikro-orm/postgresql';
import { TicketTypeEntity } from '../ticket-type/ticket-type.entity';
import { registrationCountSql, soldSql, typeHeldSql } from '../inventory/inventory.repository';
import { EventEntity } from './event.entity';
import type { EventStatus } from './event-status';

/*
 * An event and its ticket types as the change statements of event.repository.ts read and return them:
 * the rows, the SQL that selects them, the JSON a webhook message's holes are filled with, and the
 * managed entities the doors render, made from them without a read after the write.
 */

/** An event row as EventEntity's properties (the organization by id). */
export interface EventRow {
  id: string;
  organization: string;
  slug: string;
  title: string;
  description: string | null;
  startDate: Date;
  endDate: Date;
  timezone: string;
  venue: string | null;
  venueAddress: string | null;
  coverImage: string | null;
  storedStatus: EventStatus;
  capacity: number | null;
  registrationCount: number;
  createdAt: Date;
  updatedAt: Date;
  /** The series it is an occurrence of (D28), or null. */
  seriesId: string | null;
}

/** What clients read of an event beside its row: seats held now (D20) and check-ins (D22). */
export interface EventCounts {
  heldCount: number;
  checkedInCount: number;
}

/** A ticket type row as TicketTypeEntity's properties, without its event; `held` as clients read it. */
export interface TicketTypeRow {
  id: string;
  name: string;
  price: number;
  currency: string;
  quantity: number;
  sold: number;
  held: number;
  createdAt: Date;
}

/** A timestamp as ISO 8601 text (the driver gives timestamps as text in the session's format). */
export const iso = (column: string) => `to_json(${column}) #>> '{}'`;

export const EVENT_ROW = `e.id, e.organization_id as organization, e.slug, e.title, e.description, ${iso('e.start_date')} as "startDate",
  ${iso('e.end_date')} as "endDate", e.timezone, e.venue, e.venue_address as "venueAddress", e.cover_image as "coverImage",
  e.status as "storedStatus", e.capacity, ${registrationCountSql('e')} as "registrationCount", ${iso('e.created_at')} as "createdAt",
  ${iso('e.updated_at')} as "updatedAt", e.series_id as "seriesId"`;

export type AsText<T, K extends keyof T> = Omit<T, K> & { [P in K]: string };

export const asEventRow = (row: AsText<EventRow, 'startDate' | 'endDate' | 'createdAt' | 'updatedAt'>): EventRow => ({
  ...row,
  startDate: new Date(row.startDate),
  endDate: new Date(row.endDate),
  createdAt: new Date(row.createdAt),
  updatedAt: new Date(row.updatedAt),
});

/**
 * The ticket types of the event `alias` (as JSON rows, in the reads' order: creation, then id), holds
 * judged at `at` (an SQL timestamptz).
 */
export const ticketTypeRows = (alias: string, at: string) => `coalesce((select json_agg(json_build_object(
    'id', t.id, 'name', t.name, 'price', t.price, 'currency', t.currency, 'quantity', t.quantity, 'sold', ${soldSql('t')},
    'held', ${typeHeldSql('t', at)}, 'createdAt', t.created_at) order by t.created_at, t.id) from ticket_types t where t.event_id = ${alias}.id), '[]'::json)`;

export const asTicketTypeRow = (row: TicketTypeRow): TicketTypeRow => ({ ...row, price: Number(row.price), createdAt: new Date(row.createdAt) });

/**
 * What a change of the event `alias` shows in its webhook message and answer that the change does not
 * set (D18: the payload is the REST shape), as JSON text for outboxCtes' holes: the counts and the
 * ticket types as this statement reads them (one snapshot: `sold` and `registrationCount` agree; the
 * gate's `registration_count`, `held_count` and `checked_in_count` are the event's counts as clients
 * read them, slots included, holds judged at its `at`), compact and in presentTicketType's key order,
 * the price a JSON number.
 */
export const REGISTRATION_COUNT_JSON = (alias: string) => `to_json(${alias}.registration_count)::text`;
export const HELD_COUNT_JSON = (alias: string) => `to_json(${alias}.held_count)::text`;
export const CHECKED_IN_COUNT_JSON = (alias: string) => `to_json(${alias}.checked_in_count)::text`;
export const TICKET_TYPES_JSON = (alias: string) => `coalesce((select '[' || string_agg(format(
    '{"id":%s,"name":%s,"price":%s,"currency":%s,"quantity":%s,"sold":%s,"held":%s}',
    to_json(t.id), to_json(t.name), to_json(t.price::float8), to_json(t.currency), t.quantity, ${soldSql('t')}, ${typeHeldSql('t', `${alias}.at`)}),
    ',' order by t.created_at, t.id) || ']'
  from ticket_types t where t.event_id = ${alias}.id), '[]')`;

/**
 * The managed entity of an event and its ticket types as stored (the doors render it), registered
 * with `em` as loaded: a later flush finds nothing to write. With `counts`, the entity carries them and
 * its ticket types their `held` (as the statement counted them); without, the doors read them.
 */
export function managedEvent(em: EntityManager, row: EventRow, ticketTypes: readonly TicketTypeRow[], counts?: EventCounts): EventEntity {
  const event = em.merge(EventEntity, row, { refresh: true });
  event.heldCount = counts?.heldCount;
  event.checkedInCount = counts?.checkedInCount;
  const types = ticketTypes.map(({ held, ...type }) => {
    const entity = em.merge(TicketTypeEntity, { ...type, event: row.id }, { refresh: true });
    entity.held = counts ? held : undefined;
    return entity;
  });
  event.ticketTypes.hydrate(types);
  return event;
}
