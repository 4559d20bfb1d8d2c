import type { EventBody, EventSeriesRef } from '../event/event.presenter';
import type { EventView } from '../event/event.read-repository';
import type { SeriesEntity, SeriesTicketType } from './series.entity';
import type { Plan } from './series-planner';
import { presentQueueSettings } from '../queue/queue.presenter';

/*
 * A series as the API shows it (`GET /v1/series/{slug}`, the `series` of its webhook messages) and
 * the messages' occurrence ids (D28), from the rows a command holds: no request, no query. Pure.
 */

/** What presentSeries reads of a series: its entity, or the row a command is about to write. */
export type SeriesFields = Pick<
  SeriesEntity,
  | 'id'
  | 'slug'
  | 'title'
  | 'description'
  | 'venue'
  | 'venueAddress'
  | 'coverImage'
  | 'capacity'
  | 'ticketTypes'
  | 'timezone'
  | 'firstStart'
  | 'durationMinutes'
  | 'recurrence'
  | 'version'
  | 'createdAt'
  | 'updatedAt'
> & { readonly organization: { readonly id: string } };

/** The REST body of a series, its fields in the order the body has them. */
export interface SeriesBody {
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

export function presentSeries(series: SeriesFields, occurrenceCount: number): SeriesBody {
  return {
    id: series.id,
    slug: series.slug,
    title: series.title,
    description: series.description,
    venue: series.venue,
    venueAddress: series.venueAddress,
    coverImage: series.coverImage,
    capacity: series.capacity,
    ticketTypes: series.ticketTypes.map(({ name, price, currency, quantity }) => ({ name, price, currency, quantity })),
    timezone: series.timezone,
    firstStart: series.firstStart,
    durationMinutes: series.durationMinutes,
    recurrence: [...series.recurrence],
    version: series.version,
    occurrenceCount,
    organizationId: series.organization.id,
    createdAt: series.createdAt.toISOString(),
    updatedAt: series.updatedAt.toISOString(),
  };
}

/** The event ids a series message carries (D28): created, changed (updated), moved and deleted occurrences. */
export interface OccurrenceIds {
  created: string[];
  updated: string[];
  moved: string[];
  deleted: string[];
}

/** `series.created`, `series.updated`, `series.deleted`: `{ series, occurrences }`. */
export function seriesMessage(series: SeriesFields, occurrenceCount: number, occurrences: OccurrenceIds): { series: SeriesBody; occurrences: OccurrenceIds } {
  return { series: presentSeries(series, occurrenceCount), occurrences };
}

/** The ids of what a plan changed, once applied (`created`: the ids the new occurrences were given). */
export function occurrenceIdsOf(plan: Plan, createdIds: readonly string[]): OccurrenceIds {
  return {
    created: [...createdIds],
    updated: plan.update.map((entry) => entry.eventId),
    moved: plan.move.map((entry) => entry.eventId),
    deleted: plan.delete.map((entry) => entry.eventId),
  };
}

/** An event read (EventView) as its REST body (D18's event payload: GET /v1/events/{slug}, its fields in that order), with its series (D28) and its queue's settings (D30). */
export function restEventBody(event: EventView, series: EventSeriesRef | null): EventBody {
  return {
    id: event.id,
    slug: event.slug,
    title: event.title,
    description: event.description,
    startDate: event.startDate,
    endDate: event.endDate,
    timezone: event.timezone,
    venue: event.venue,
    venueAddress: event.venueAddress,
    coverImage: event.coverImage,
    status: event.status,
    capacity: event.capacity,
    registrationCount: event.registrationCount,
    heldCount: event.heldCount,
    checkedInCount: event.checkedInCount,
    organizationId: event.organizationId,
    createdAt: event.createdAt,
    updatedAt: event.updatedAt,
    series,
    ticketTypes: event.ticketTypes ?? [],
    queue: presentQueueSettings(event.queue),
  };
}
