import DataLoader from 'dataloader';
import { AppError } from '../../foundation/errors/app-error';
import { paginationErrors } from '../../foundation/validation/arguments';
import { assertValidInput } from '../../foundation/validation/validate-input';
import { cursorErrors, cursorsOf, openCursor } from '../../platform/graphql/list-cursors';
import { readsOf, type RequestContext } from '../../platform/graphql/request-context';
import { EventOrder } from '../event/event-order';
import { eventPage, type EventPage } from '../event/event.read-model';
import { findSeriesBySlug, listSeries, occurrenceCounts, seriesRefs, type SeriesView } from './series.read-repository';

/*
 * The reads of series (D28) for the doors: one series (404 SERIES_NOT_FOUND, another organization's
 * included), a page of them, a series' occurrences (the events list, filtered to the series and in
 * order of their start), and the per-response batches behind Event.series and Series.occurrenceCount.
 */

export interface SeriesPage {
  series: SeriesView[];
  total: number;
  page: number;
  limit: number;
  nextCursor: string | null;
}

const LIST = JSON.stringify(['series']);

export async function seriesPage(context: RequestContext, query: { page: number; limit: number; after?: string | null }): Promise<SeriesPage> {
  assertValidInput(paginationErrors(query.page, query.limit), cursorErrors(query.page, query.after));
  const organizationId = context.auth.organization.id;
  const cursors = cursorsOf(context);
  const after = query.after != null ? openCursor(cursors, organizationId, LIST, query.after) : null;
  const { series, total, next } = await listSeries(readsOf(context), organizationId, { page: query.page, limit: query.limit, after });
  return { series, total, page: query.page, limit: query.limit, nextCursor: next ? cursors.seal(organizationId, LIST, next) : null };
}

export async function seriesBySlug(context: RequestContext, slug: string): Promise<SeriesView> {
  const series = await findSeriesBySlug(readsOf(context), context.auth.organization.id, slug);
  if (!series) throw AppError.seriesNotFound(slug);
  return series;
}

/** A series' occurrences, a page at a time, in order of their start (D25 cursors as the events list's). */
export async function occurrencesPage(context: RequestContext, slug: string, query: { page: number; limit: number; after?: string | null }): Promise<EventPage> {
  await seriesBySlug(context, slug);
  return eventPage(context, { ...query, series: slug, orderBy: EventOrder.START_DATE_ASC });
}

function perRequest<V>(cache: WeakMap<RequestContext, DataLoader<string, V>>, context: RequestContext, fetch: (ids: readonly string[]) => Promise<Map<string, V>>, missing: V) {
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

const refs = new WeakMap<RequestContext, DataLoader<string, { id: string; slug: string } | null>>();
const counts = new WeakMap<RequestContext, DataLoader<string, number>>();

/** Event.series (D28): the series of the events of one response, in one statement. */
export function seriesRefOf(context: RequestContext, seriesId: string): Promise<{ id: string; slug: string } | null> {
  return perRequest(refs, context, (ids) => seriesRefs(readsOf(context), context.auth.organization.id, ids), null).load(seriesId);
}

/** Series.occurrenceCount where the series was not read with it (after a write), batched per response. */
export function occurrenceCountOf(context: RequestContext, seriesId: string): Promise<number> {
  return perRequest(counts, context, (ids) => occurrenceCounts(readsOf(context), context.auth.organization.id, ids), 0).load(seriesId);
}
