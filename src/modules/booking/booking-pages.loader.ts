import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { paginationErrors } from '../../foundation/validation/arguments';
import { BookingEntity, type BookingStatus } from './booking.entity';
import type { BookingList } from './booking.types';
import { invalidInput } from '../../foundation/validation/validate-input';

export interface BookingQuery {
  page: number;
  limit: number;
  status?: BookingStatus | null;
}

/**
 * One page of bookings for each of many events (Event.bookings on a list of events), in a constant
 * number of statements: the page's ids per event (a window function), the totals per event, then the
 * bookings themselves — never one query per event.
 */
async function pagesOf(em: EntityManager, eventIds: readonly string[], query: BookingQuery): Promise<BookingList[]> {
  const offset = (query.page - 1) * query.limit;
  const statusFilter = query.status ? 'and b.status = ?' : '';
  const statusParameter = query.status ? [query.status] : [];
  const connection = em.getConnection();
  const ranked = await connection.execute<Array<{ id: string; event_id: string }>>(
    `select id, event_id from (
       select b.id, b.event_id, row_number() over (partition by b.event_id order by b.created_at desc, b.id desc) as position
       from bookings b where b.event_id in (?) ${statusFilter}
     ) ranked where position > ? and position <= ?`,
    [[...eventIds], ...statusParameter, offset, offset + query.limit],
  );
  const totals = await connection.execute<Array<{ event_id: string; total: number }>>(
    `select b.event_id, count(*)::int as total from bookings b where b.event_id in (?) ${statusFilter} group by b.event_id`,
    [[...eventIds], ...statusParameter],
  );
  const bookings =
    ranked.length === 0
      ? []
      : await em.find(BookingEntity, { id: { $in: ranked.map((row) => row.id) } }, { orderBy: { createdAt: 'desc', id: 'desc' }, populate: ['ticketType'] });
  const pages = new Map(eventIds.map((id) => [id, { bookings: [] as BookingEntity[], total: 0, page: query.page, limit: query.limit }]));
  for (const { event_id, total } of totals) pages.get(event_id)!.total = total;
  for (const booking of bookings) pages.get(booking.event.id)?.bookings.push(booking);
  return eventIds.map((id) => pages.get(id)!);
}

const loaders = new WeakMap<EntityManager, Map<string, DataLoader<string, BookingList>>>();

/** The page of `eventId`'s bookings, batched with the other events of the same request and query. */
export function bookingPageOf(em: EntityManager, eventId: string, query: BookingQuery): Promise<BookingList> {
  const invalid = invalidInput(paginationErrors(query.page, query.limit));
  // A rejected promise, not a throw: callers batch this with other events' pages.
  if (invalid) return Promise.reject(invalid);
  const byQuery = loaders.get(em) ?? new Map<string, DataLoader<string, BookingList>>();
  loaders.set(em, byQuery);
  const queryKey = `${query.page}:${query.limit}:${query.status ?? ''}`;
  let loader = byQuery.get(queryKey);
  if (!loader) {
    loader = new DataLoader((eventIds: readonly string[]) => pagesOf(em, eventIds, query));
    byQuery.set(queryKey, loader);
  }
  return loader.load(eventId);
}
