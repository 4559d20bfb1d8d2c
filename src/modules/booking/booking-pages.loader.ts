import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { paginationErrors } from '../../foundation/validation/arguments';
import { BookingEntity, type BookingStatus } from './booking.entity';
import type { BookingList } from './booking.types';
import type { ListPosition } from '../../platform/db/list-position';
import type { ListCursors } from '../../platform/crypto/list-cursor';
import { invalidInput } from '../../foundation/validation/validate-input';

export interface BookingQuery {
  page: number;
  limit: number;
  status?: BookingStatus | null;
  /** Where a cursor page starts (D25): after this booking, instead of a page number. */
  after?: ListPosition | null;
}

/** What a bookings cursor is bound to besides the organization: the event and the status filter. */
export const bookingListOf = (eventId: string, status: BookingStatus | null | undefined): string =>
  JSON.stringify(['bookings', eventId, status ?? null]);

/** A page as loaded: the list, and the position of its last row when another page follows. */
type LoadedPage = Omit<BookingList, 'nextCursor'> & { next: ListPosition | null };

/**
 * One page of bookings for each of many events (Event.bookings on a list of events), in a constant
 * number of statements: the page's ids per event (a window function), the totals per event, then the
 * bookings themselves — never one query per event.
 */
async function pagesOf(em: EntityManager, eventIds: readonly string[], query: BookingQuery): Promise<LoadedPage[]> {
  const offset = query.after ? 0 : (query.page - 1) * query.limit;
  const statusFilter = query.status ? 'and b.status = ?' : '';
  const statusParameter = query.status ? [query.status] : [];
  // A cursor page seeks on bookings_event_id_created_at_index: it starts after the cursor's booking.
  const seek = query.after ? `and (b.created_at, b.id) < ('epoch'::timestamptz + ?::bigint * interval '1 microsecond', ?)` : '';
  const seekParameters = query.after ? [query.after[0], query.after[1]] : [];
  const connection = em.getConnection();
  // One row more than the page says whether another page follows.
  const ranked = await connection.execute<Array<{ id: string; event_id: string; sort_key: string; position: string | number }>>(
    `select id, event_id, sort_key, position from (
       select b.id, b.event_id, (extract(epoch from b.created_at) * 1000000)::bigint::text as sort_key,
         row_number() over (partition by b.event_id order by b.created_at desc, b.id desc) as position
       from bookings b where b.event_id in (?) ${statusFilter} ${seek}
     ) ranked where position > ? and position <= ?`,
    [[...eventIds], ...statusParameter, ...seekParameters, offset, offset + query.limit + 1],
  );
  const next = new Map<string, ListPosition>();
  const onPage = ranked.filter((row) => {
    const position = Number(row.position);
    if (position === offset + query.limit) next.set(row.event_id, [row.sort_key, row.id]);
    return position <= offset + query.limit;
  });
  const following = new Set(ranked.filter((row) => Number(row.position) > offset + query.limit).map((row) => row.event_id));
  const totals = await connection.execute<Array<{ event_id: string; total: number }>>(
    `select b.event_id, count(*)::int as total from bookings b where b.event_id in (?) ${statusFilter} group by b.event_id`,
    [[...eventIds], ...statusParameter],
  );
  const bookings =
    onPage.length === 0
      ? []
      : await em.find(BookingEntity, { id: { $in: onPage.map((row) => row.id) } }, { orderBy: { createdAt: 'desc', id: 'desc' }, populate: ['ticketType'] });
  const pages = new Map(
    eventIds.map((id): [string, LoadedPage] => [
      id,
      { bookings: [], total: 0, page: query.page, limit: query.limit, next: following.has(id) ? (next.get(id) ?? null) : null },
    ]),
  );
  for (const { event_id, total } of totals) pages.get(event_id)!.total = total;
  for (const booking of bookings) pages.get(booking.event.id)?.bookings.push(booking);
  return eventIds.map((id) => pages.get(id)!);
}

const loaders = new WeakMap<EntityManager, Map<string, DataLoader<string, LoadedPage>>>();

/** Who seals the next page's cursor: the request's cursors and organization. */
export interface BookingCursorSealer {
  readonly cursors: ListCursors;
  readonly organizationId: string;
}

/** The page of `eventId`'s bookings, batched with the other events of the same request and query. */
export async function bookingPageOf(em: EntityManager, eventId: string, query: BookingQuery, sealer: BookingCursorSealer): Promise<BookingList> {
  const invalid = invalidInput(paginationErrors(query.page, query.limit));
  // An async function: a rejected promise, not a throw (callers batch this with other events' pages).
  if (invalid) throw invalid;
  const byQuery = loaders.get(em) ?? new Map<string, DataLoader<string, LoadedPage>>();
  loaders.set(em, byQuery);
  const queryKey = JSON.stringify([query.page, query.limit, query.status ?? '', query.after ?? null]);
  let loader = byQuery.get(queryKey);
  if (!loader) {
    loader = new DataLoader((eventIds: readonly string[]) => pagesOf(em, eventIds, query));
    byQuery.set(queryKey, loader);
  }
  const { next, ...page } = await loader.load(eventId);
  const nextCursor = next ? sealer.cursors.seal(sealer.organizationId, bookingListOf(eventId, query.status), next) : null;
  return { ...page, nextCursor };
}
