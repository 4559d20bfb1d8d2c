import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executeStatement } from '../../platform/db/prepared-statements';
import { sqlStatements } from '../../platform/db/sql-statement';
import { freeSeatsSql, leaveNodesSql, outstandingSql, positionSql } from './queue-sql';
import type { EntryRow } from './queue.read-repository';

/*
 * The queue's changes asked for by clients (D30): a join, a leave. Organization first (D1). The
 * queue's row (event_queues) is locked before an entry's, as the admission job does
 * (queue-admission.repository.ts): a join takes it by its upsert, a leave first.
 */

const sql = sqlStatements(__filename);

/** What a join found or made. */
export interface JoinAnswer {
  /** Null: no such event in the organization. */
  readonly eventId: string | null;
  readonly status: string | null;
  readonly endDate: Date | null;
  readonly enabled: boolean;
  readonly opensAt: Date | null;
  /** The attendee's entry (not LEFT) that was there already. */
  readonly existingId: string | null;
  /** The entry made, as a poll answers it (null: refused, or there was one). */
  readonly made: EntryRow | null;
  /** Whether the queue is sold out (no seat free, no admission outstanding, or marked so). */
  readonly soldOut: boolean;
}

/**
 * A join, as one statement: the attendee's entry if there is one (not LEFT: one per email and event);
 * else, while the queue is enabled and open, the event not over and not sold out, a WAITING entry at
 * the end of the queue: the queue's row counts it (made by the first join), numbering it (`seq`); a
 * join at or after onSaleAt fixes how many joined before (`early`, unless the draw did) and takes its
 * number as its rank. The clock is read under the queue's row lock (clock_timestamp in the upsert),
 * so numbers and the before/after of onSaleAt agree. Two joins of one email at once: the unique index
 * refuses the second (the caller answers the first's entry). The entry made is answered as a poll
 * answers it (its position from the queue's row as this statement left it): no read after the write.
 */
const JOIN = sql.statement<
  { organizationId: string; eventSlug: string; id: string; attendeeEmail: string; attendeeName: string | null },
  {
    event_id: string | null;
    event_status: string | null;
    end_date: string | Date | null;
    enabled: boolean | null;
    opens_at: string | Date | null;
    existing_id: string | null;
    sold_out: boolean | null;
  } & { [K in keyof EntryRow]: EntryRow[K] | null }
>(
  'joinQueue',
  `with ev as (
       select e.id, e.organization_id, e.status, e.end_date, e.capacity, e.registration_count, e.held_count,
              e.queue_enabled, e.queue_opens_at, e.queue_on_sale_at, e.queue_admit_per_minute, e.slug
         from events e where e.organization_id = :organizationId and e.slug = :eventSlug),
     mine as (
       select x.id from queue_entries x join ev on x.organization_id = ev.organization_id and x.event_id = ev.id
        where lower(x.attendee_email) = lower(:attendeeEmail) and x.status <> 'LEFT'),
     stock as (
       select (q.sold_out_at is not null) or coalesce(${freeSeatsSql('ev', 'now()')} <= 0 and ${outstandingSql('ev', 'now()')} = 0, false) as sold_out
         from ev left join event_queues q on q.organization_id = ev.organization_id and q.event_id = ev.id),
     open as (
       select ev.* from ev join stock on true
        where ev.queue_enabled and (ev.queue_opens_at is null or ev.queue_opens_at <= clock_timestamp())
          and ev.status in ('DRAFT', 'PUBLISHED') and ev.end_date > now() and not stock.sold_out and not exists (select 1 from mine)),
     q as (
       insert into event_queues as u (organization_id, event_id, joined, waiting, early)
       select organization_id, id, 1, 1, case when queue_on_sale_at is null or clock_timestamp() >= queue_on_sale_at then 0 end from open
       on conflict (organization_id, event_id) do update
          set joined = u.joined + 1, waiting = u.waiting + 1,
              early = coalesce(u.early, case when excluded.early is not null then u.joined end)
        where u.sold_out_at is null
       returning u.organization_id, u.event_id, u.joined, u.early, u.head, u.drawn_at, u.early_left),
     made as (
       insert into queue_entries (organization_id, id, event_id, attendee_email, attendee_name, status, seq, rank, joined_at)
       select q.organization_id, :id, q.event_id, :attendeeEmail, :attendeeName::text, 'WAITING', q.joined,
              case when q.early is not null and q.joined > q.early then q.joined end, clock_timestamp()
         from q
       returning *)
   select ev.id as event_id, ev.status as event_status, ev.end_date, ev.queue_enabled as enabled, ev.queue_opens_at as opens_at,
          (select id from mine limit 1) as existing_id, stock.sold_out,
          m.id, ev.slug as event_slug, m.attendee_email, m.attendee_name, m.status, ${positionSql('m', 'q')} as position, m.joined_at,
          m.admitted_at, m.admitted_until, m.used_at, m.booking_id, ev.queue_admit_per_minute as admit_per_minute, ev.queue_on_sale_at as on_sale_at, now() as now
     from (select 1) one left join ev on true left join stock on true left join made m on true left join q on true`,
);

/**
 * The join statement; when the same attendee joined at the same moment, the unique index kept the
 * other's entry: answered as the attendee's entry there is.
 */
export async function joinQueueEntry(
  em: EntityManager,
  organizationId: string,
  join: { eventSlug: string; id: string; attendeeEmail: string; attendeeName: string | null },
): Promise<JoinAnswer> {
  let rows;
  try {
    // In a transaction (an Idempotency-Key's unit of work), under a savepoint: the look-up below must still run.
    rows = em.isInTransaction()
      ? await em.transactional((savepoint) => executeStatement(savepoint, JOIN, { organizationId, ...join }))
      : await executeStatement(em, JOIN, { organizationId, ...join });
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    const existingId = await entryOfAttendee(em, organizationId, join.eventSlug, join.attendeeEmail);
    if (existingId === null) throw error;
    return { eventId: null, status: null, endDate: null, enabled: true, opensAt: null, existingId, made: null, soldOut: false };
  }
  const [row] = rows;
  const date = (value: string | Date | null) => (value === null ? null : new Date(value));
  return {
    eventId: row.event_id,
    status: row.event_status,
    endDate: date(row.end_date),
    enabled: row.enabled === true,
    opensAt: date(row.opens_at),
    existingId: row.existing_id,
    made: row.id === null ? null : ({ ...row, event_id: row.event_id! } as EntryRow),
    soldOut: row.sold_out === true,
  };
}

const EXISTING = sql.statement<{ organizationId: string; eventSlug: string; attendeeEmail: string }, { id: string }>(
  'queueEntryOfAttendee',
  `select x.id from queue_entries x join events e on e.organization_id = x.organization_id and e.id = x.event_id
    where x.organization_id = :organizationId and e.slug = :eventSlug and lower(x.attendee_email) = lower(:attendeeEmail) and x.status <> 'LEFT'`,
);

/** The attendee's entry (not LEFT) of the organization's event `eventSlug`, or null. */
export async function entryOfAttendee(em: EntityManager, organizationId: string, eventSlug: string, attendeeEmail: string): Promise<string | null> {
  const [row] = await executeStatement(em, EXISTING, { organizationId, eventSlug, attendeeEmail });
  return row?.id ?? null;
}

/**
 * A leave, as one statement: under the queue's row lock, then the entry's, the entry becomes LEFT
 * (from WAITING, ADMITTED, EXPIRED or SOLD_OUT; a USED one stays as it is: its booking was made).
 * A WAITING one leaves the queue's count; with a rank it is added to the tree of LEFT ranks (the
 * positions behind it move up), without one (an early joiner before the draw) to `early_left`.
 * Returns whether the organization has the entry.
 */
const LEAVE = sql.statement<{ organizationId: string; id: string }, { found: boolean }>(
  'leaveQueue',
  `with found as (select event_id from queue_entries where organization_id = :organizationId and id = :id),
     u as (
       select u.* from event_queues u join found f on u.organization_id = :organizationId and u.event_id = f.event_id
          for no key update of u),
     x as (
       select x.* from queue_entries x join u on x.organization_id = u.organization_id and x.event_id = u.event_id
        where x.id = :id for no key update of x),
     gone as (
       update queue_entries y set status = 'LEFT', left_at = now()
         from x where y.organization_id = x.organization_id and y.id = x.id and x.status in ('WAITING', 'ADMITTED', 'EXPIRED', 'SOLD_OUT')
       returning x.organization_id, x.event_id, x.rank, x.status as was),
     counted as (
       update event_queues v set waiting = u.waiting - 1, early_left = u.early_left + case when g.rank is null then 1 else 0 end
         from u join gone g on g.was = 'WAITING'
        where v.organization_id = u.organization_id and v.event_id = u.event_id),
     tree as (
       insert into queue_leaves (organization_id, event_id, node, count)
       select g.organization_id, g.event_id, n.node, 1 from gone g cross join lateral (${leaveNodesSql('g.rank')}) n
        where g.was = 'WAITING' and g.rank is not null
       on conflict (organization_id, event_id, node) do update set count = queue_leaves.count + 1)
   select exists (select 1 from x) as found`,
);

export async function leaveQueueEntry(em: EntityManager, organizationId: string, id: string): Promise<boolean> {
  const [row] = await executeStatement(em, LEAVE, { organizationId, id });
  return row.found;
}
