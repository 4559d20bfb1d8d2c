import DataLoader from 'dataloader';
import { AppError, type FieldError } from '../../foundation/errors/app-error';
import { readsOf, type RequestContext } from '../../platform/graphql/request-context';
import { paginationErrors, slugErrors } from '../../foundation/validation/arguments';
import {
  checkedInCountsOfEvents,
  findEventBySlug,
  ticketTypesOfEvents,
  type EventListQuery,
  type EventView,
  type TicketTypeView,
} from './event.read-repository';
import { listEvents, type EventPageStart } from './event-list.read-repository';
import { EventOrder } from './event-order';
import { cursorErrors, cursorsOf, openCursor } from '../../platform/graphql/list-cursors';
import { assertValidInput } from '../../foundation/validation/validate-input';
import { heldOfEvents, heldOfTicketTypes } from '../inventory/inventory.repository';

/** The longest title search accepted (titles are at most 200 characters), counted in code points as titles are. */
export const MAX_SEARCH_LENGTH = 200;

export interface EventPage {
  events: EventView[];
  total: number;
  page: number;
  limit: number;
  /** The cursor of the next page; null on the last page (D25). */
  nextCursor: string | null;
}

/**
 * What a cursor is bound to besides the organization: the list (events), its order and filters. A
 * cursor of another order or filter does not open.
 */
function listOf(query: EventListQuery): string {
  return JSON.stringify([
    'events',
    query.orderBy ?? EventOrder.CREATED_AT_DESC,
    query.status ?? null,
    query.startsAfter?.toISOString() ?? null,
    query.startsBefore?.toISOString() ?? null,
    query.search || null,
    ...(query.series != null ? [query.series] : []),
  ]);
}

/** The rules of the list's filters: the search's length, and a window that ends after it starts. */
function searchErrors(query: EventListQuery): FieldError[] {
  const errors: FieldError[] = [];
  if (query.search != null && [...query.search].length > MAX_SEARCH_LENGTH) {
    errors.push({ field: 'search', message: `search must be at most ${MAX_SEARCH_LENGTH} characters` });
  }
  if (query.series != null && slugErrors('series', query.series).length > 0) {
    errors.push({ field: 'series', message: 'series must be a series slug: lower-case letters and digits joined by single hyphens' });
  }
  if (query.startsAfter != null && query.startsBefore != null && query.startsBefore.getTime() <= query.startsAfter.getTime()) {
    errors.push({ field: 'startsBefore', message: 'startsBefore must be after startsAfter' });
  }
  return errors;
}

/** One page of the organization's events (one statement), after the argument rules (D4). */
export async function eventPage(context: RequestContext, query: EventListQuery): Promise<EventPage> {
  assertValidInput(paginationErrors(query.page, query.limit), searchErrors(query), cursorErrors(query.page, query.after));
  const organizationId = context.auth.organization.id;
  const cursors = cursorsOf(context);
  const list = listOf(query);
  const start: EventPageStart = query.after != null ? { after: openCursor(cursors, organizationId, list, query.after) } : { page: query.page };
  const { events, total, next } = await listEvents(readsOf(context), organizationId, query, start);
  return { events, total, page: query.page, limit: query.limit, nextCursor: next ? cursors.seal(organizationId, list, next) : null };
}

/** One event with its ticket types (one statement), or EVENT_NOT_FOUND. */
export async function eventBySlug(context: RequestContext, slug: string): Promise<EventView> {
  const event = await findEventBySlug(readsOf(context), context.auth.organization.id, slug);
  if (!event) throw AppError.eventNotFound(slug);
  return event;
}

/** One DataLoader per request and purpose: whatever one response asks for, fetched in one statement. */
function perRequest<V>(
  cache: WeakMap<RequestContext, DataLoader<string, V>>,
  context: RequestContext,
  fetch: (ids: readonly string[]) => Promise<Map<string, V>>,
  missing: V,
): DataLoader<string, V> {
  let loader = cache.get(context);
  if (!loader) {
    loader = new DataLoader(async (ids: readonly string[]) => {
      const found = await fetch(ids);
      return ids.map((id) => found.get(id) ?? missing);
    });
    cache.set(context, loader);
  }
  return loader;
}

const heldByEvent = new WeakMap<RequestContext, DataLoader<string, number>>();
const heldByTicketType = new WeakMap<RequestContext, DataLoader<string, number>>();

/** Event.heldCount (D20): seats held now, holds past their expiresAt left out; batched per response. */
export function heldCountOf(context: RequestContext, eventId: string): Promise<number> {
  return perRequest(heldByEvent, context, (ids) => heldOfEvents(readsOf(context), ids, new Date()), 0).load(eventId);
}

/** TicketType.held (D20), as heldCountOf. */
export function heldOf(context: RequestContext, ticketTypeId: string): Promise<number> {
  return perRequest(heldByTicketType, context, (ids) => heldOfTicketTypes(readsOf(context), ids, new Date()), 0).load(ticketTypeId);
}

const loaders = new WeakMap<RequestContext, DataLoader<string, TicketTypeView[]>>();

/** Ticket types of the events of one request, fetched in one statement for all of them. */
export function ticketTypesOf(context: RequestContext, eventId: string): Promise<TicketTypeView[]> {
  let loader = loaders.get(context);
  if (!loader) {
    loader = new DataLoader(async (eventIds: readonly string[]) => {
      const byEvent = await ticketTypesOfEvents(readsOf(context), eventIds);
      return eventIds.map((id) => byEvent.get(id) ?? []);
    });
    loaders.set(context, loader);
  }
  return loader.load(eventId);
}

const checkedInLoaders = new WeakMap<RequestContext, DataLoader<string, number>>();

/**
 * Event.checkedInCount (D22): the checked-in CONFIRMED bookings of the events of one request, counted
 * in one statement for all of them (a list page that asks for it costs one statement more, not one per event).
 */
export function checkedInCountOf(context: RequestContext, eventId: string): Promise<number> {
  let loader = checkedInLoaders.get(context);
  if (!loader) {
    loader = new DataLoader(async (eventIds: readonly string[]) => {
      const byEvent = await checkedInCountsOfEvents(readsOf(context), eventIds);
      return eventIds.map((id) => byEvent.get(id) ?? 0);
    });
    checkedInLoaders.set(context, loader);
  }
  return loader.load(eventId);
}
