import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../foundation/ids';
import { executeOnOrm } from '../../platform/db/prepared-statements';
import { sqlStatements } from '../../platform/db/sql-statement';
import { RATE_WINDOW_MS } from './queue.policy';
import { freeSeatsSql, isoSql, outstandingSql } from './queue-sql';

/*
 * The admission job's SQL (D30; commands/admit-queues.ts runs it). Every instance runs the job; one
 * queue is worked on by one transaction at a time, the one that locked its row (FOR UPDATE SKIP
 * LOCKED: the others pass it by). A transaction that dies with its instance rolls back and unlocks:
 * the next pass of any instance takes the queue on. Times are the database's (now(): the
 * transaction's start), one clock for every instance. Lock order as everywhere in the queue: its row,
 * then entries.
 */

const sql = sqlStatements(__filename);

/** A queue whose sale has opened with something to do: the draw, or entries waiting. */
const DUE = sql.statement<{ limit: number }, { organization_id: string; event_id: string }>(
  'dueQueues',
  `select u.organization_id, u.event_id from event_queues u join events e on e.organization_id = u.organization_id and e.id = u.event_id
    where u.sold_out_at is null and (u.drawn_at is null or u.waiting > 0) and e.queue_enabled
      and (e.queue_on_sale_at is null or e.queue_on_sale_at <= now())
    order by u.event_id limit :limit`,
);

export type QueueTarget = { readonly organizationId: string; readonly eventId: string };

export async function dueQueues(em: EntityManager, limit: number): Promise<QueueTarget[]> {
  const rows = await executeOnOrm(em, DUE, { limit });
  return rows.map((row) => ({ organizationId: row.organization_id, eventId: row.event_id }));
}

/** A queue as one pass decides on it, its row locked (times: milliseconds of the database's clock). */
export interface LockedQueue {
  readonly organizationId: string;
  readonly eventId: string;
  readonly eventSlug: string;
  /** The event takes bookings (PUBLISHED, not over): only then does the queue admit or sell out. */
  readonly selling: boolean;
  readonly joined: number;
  readonly early: number | null;
  readonly drawn: boolean;
  readonly head: number;
  readonly waiting: number;
  readonly paceMs: number | null;
  readonly now: number;
  readonly admitPerMinute: number;
  readonly admissionMinutes: number;
  readonly maxSeatsPerAdmission: number;
  readonly free: number | null;
  readonly outstanding: number;
  readonly admittedInWindow: number;
}

const LOCK = sql.statement<
  { organizationId: string; eventId: string; windowMs: number },
  {
    slug: string;
    selling: boolean;
    joined: number;
    early: number | null;
    drawn: boolean;
    head: number;
    waiting: number;
    pace_ms: number | null;
    now_ms: string | number;
    admit_per_minute: number;
    admission_minutes: number;
    max_seats: number;
    free: number | null;
    outstanding: number;
    in_window: number;
  }
>(
  'lockQueue',
  `select e.slug, e.status = 'PUBLISHED' and e.end_date > now() as selling, u.joined, u.early, u.drawn_at is not null as drawn,
          u.head, u.waiting, u.pace_ms, extract(epoch from now()) * 1000 as now_ms,
          e.queue_admit_per_minute as admit_per_minute, e.queue_admission_minutes as admission_minutes, e.queue_max_seats as max_seats,
          ${freeSeatsSql('e', 'now()')} as free, ${outstandingSql('e', 'now()')} as outstanding,
          (select count(*) from queue_entries m where m.event_id = e.id and m.admitted_at > now() - :windowMs * interval '1 millisecond')::int as in_window
     from event_queues u join events e on e.organization_id = u.organization_id and e.id = u.event_id
    where u.organization_id = :organizationId and u.event_id = :eventId and u.sold_out_at is null and e.queue_enabled
      for update of u skip locked`,
);

/** The queue `target` locked for this transaction with what a pass decides on, or null (another pass holds it, or it is done). */
export async function lockQueue(tx: EntityManager, target: QueueTarget): Promise<LockedQueue | null> {
  const [row] = await executeOnOrm(tx, LOCK, { ...target, windowMs: RATE_WINDOW_MS });
  if (!row) return null;
  return {
    ...target,
    eventSlug: row.slug,
    selling: row.selling,
    joined: Number(row.joined),
    early: row.early === null ? null : Number(row.early),
    drawn: row.drawn,
    head: Number(row.head),
    waiting: Number(row.waiting),
    paceMs: row.pace_ms === null ? null : Number(row.pace_ms),
    now: Number(row.now_ms),
    admitPerMinute: Number(row.admit_per_minute),
    admissionMinutes: Number(row.admission_minutes),
    maxSeatsPerAdmission: Number(row.max_seats),
    free: row.free === null ? null : Number(row.free),
    outstanding: Number(row.outstanding),
    admittedInWindow: Number(row.in_window),
  };
}

const EARLY = sql.statement<{ organizationId: string; eventId: string; early: number }, { id: string; status: string }>(
  'earlyJoiners',
  `select id, status from queue_entries where organization_id = :organizationId and event_id = :eventId and rank is null and seq <= :early order by seq`,
);

/** The early joiners (seq ≤ early) without a rank: every one of them before the draw. */
export async function earlyJoiners(tx: EntityManager, target: QueueTarget, early: number): Promise<Array<{ id: string; status: string }>> {
  return executeOnOrm(tx, EARLY, { ...target, early });
}

const DRAWN = sql.statement<{ organizationId: string; eventId: string; ids: string; early: number; head: number }, Record<string, unknown>>(
  'drawRanks',
  `with ranked as (
       update queue_entries q set rank = v.rank
         from unnest(:ids::text[]) with ordinality v(id, rank)
        where q.organization_id = :organizationId and q.id = v.id)
   update event_queues set early = :early::int, head = :head::int, drawn_at = now()
    where organization_id = :organizationId and event_id = :eventId`,
);

/** The draw written: ranks 1.. in the order of `ids`, `early` fixed, the first `head` ranks passed (those who left). */
export async function writeDraw(tx: EntityManager, target: QueueTarget, ids: readonly string[], early: number, head: number): Promise<void> {
  await executeOnOrm(tx, DRAWN, { ...target, ids: `{${ids.join(',')}}`, early, head });
}

const EXPIRE = sql.statement<{ organizationId: string; eventId: string }, Record<string, unknown>>(
  'expireAdmissions',
  `update queue_entries set status = 'EXPIRED' where event_id = :eventId and organization_id = :organizationId and status = 'ADMITTED' and admitted_until <= now()`,
);

/** Admissions past admittedUntil stored EXPIRED (every read shows them so from that moment). */
export async function expireAdmissions(tx: EntityManager, target: QueueTarget): Promise<void> {
  await executeOnOrm(tx, EXPIRE, target);
}

/**
 * An entry as its `queue.admitted` message carries it (the fields of QueueEntry as REST shows it,
 * `created` aside), as compact JSON text from the row `a` and the event's slug `:eventSlug`.
 */
const ENTRY_JSON = `format('{"id":%s,"eventId":%s,"eventSlug":%s,"attendeeEmail":%s,"attendeeName":%s,"status":%s,"position":null,"estimatedWaitSeconds":null,"pollAfterSeconds":null,"joinedAt":%s,"admittedAt":%s,"admittedUntil":%s,"usedAt":null,"bookingId":null}',
    to_json(a.id), to_json(a.event_id), to_json(:eventSlug::text), to_json(a.attendee_email), coalesce(to_json(a.attendee_name)::text, 'null'), to_json(a.status),
    to_json(${isoSql('a.joined_at')}), to_json(${isoSql('a.admitted_at')}), to_json(${isoSql('a.admitted_until')}))`;

/** One message per row of `rows` (with a row number `n`), of `type`, with `data`: only when an endpoint wants it. */
const messagesOf = (type: string, rows: string, data: string) => `wanted as (
       select id, organization_id from webhook_endpoints
        where organization_id = :organizationId and enabled and (cardinality(event_types) = 0 or '${type}' = any(event_types))),
     messages as (
       insert into webhook_messages (id, organization_id, type, body, created_at)
       select m.id, :organizationId, '${type}', format('{"type":"${type}","timestamp":%s,"data":%s}', to_json(${isoSql('now()')}), ${data}), now()
         from ${rows} a join unnest(:messageIds::text[]) with ordinality m(id, n) on m.n = a.n
        where exists (select 1 from wanted)
       returning id),
     deliveries as (
       insert into webhook_deliveries (organization_id, message_id, endpoint_id, next_attempt_at, created_at)
       select w.organization_id, m.id, w.id, now(), now() from messages m cross join wanted w)`;

const ADMIT = sql.statement<
  { organizationId: string; eventId: string; eventSlug: string; head: number; count: number; minutes: number; paceMs: number; messageIds: string },
  { admitted: number; outbox_written: boolean }
>(
  'admitNext',
  `with next as (
       select x.organization_id, x.id, x.rank from queue_entries x
        where x.event_id = :eventId and x.status = 'WAITING' and x.rank > :head::int and x.organization_id = :organizationId
        order by x.rank limit :count::int for no key update of x),
     admitted as (
       update queue_entries y set status = 'ADMITTED', admitted_at = now(), admitted_until = now() + :minutes::int * interval '1 minute'
         from next where y.organization_id = next.organization_id and y.id = next.id
       returning y.*),
     numbered as (select a.*, row_number() over (order by a.rank) as n from admitted a),
     state as (
       update event_queues u set head = coalesce((select max(rank) from admitted), u.head), waiting = u.waiting - (select count(*) from admitted)::int,
                                 pace_ms = :paceMs::float8
        where u.organization_id = :organizationId and u.event_id = :eventId),
     ${messagesOf('queue.admitted', 'numbered', ENTRY_JSON)}
   select (select count(*) from admitted)::int as admitted, exists (select 1 from messages) as outbox_written`,
);

/**
 * The next `count` WAITING entries by rank made ADMITTED until `minutes` from now (LEFT ones between
 * are passed: `head` moves to the last admitted), the queue's pace set, and a `queue.admitted` message
 * each. Returns how many were admitted and whether a message was written.
 */
export async function admitNext(
  tx: EntityManager,
  queue: LockedQueue,
  count: number,
  paceMs: number,
): Promise<{ admitted: number; outboxWritten: boolean }> {
  const messageIds = Array.from({ length: count }, () => newId('msg'));
  const [row] = await executeOnOrm(tx, ADMIT, {
    organizationId: queue.organizationId,
    eventId: queue.eventId,
    eventSlug: queue.eventSlug,
    head: queue.head,
    count,
    minutes: queue.admissionMinutes,
    paceMs,
    messageIds: `{${messageIds.join(',')}}`,
  });
  return { admitted: Number(row.admitted), outboxWritten: row.outbox_written };
}

const SOLD_OUT = sql.statement<
  { organizationId: string; eventId: string; eventSlug: string; messageIds: string },
  { entries: number; outbox_written: boolean }
>(
  'sellOut',
  `with state as (
       update event_queues set sold_out_at = now(), waiting = 0
        where organization_id = :organizationId and event_id = :eventId and sold_out_at is null returning event_id, sold_out_at),
     marked as (
       update queue_entries x set status = 'SOLD_OUT', sold_out_at = now() from state
        where x.event_id = state.event_id and x.organization_id = :organizationId and x.status = 'WAITING' returning x.id),
     numbered as (select s.*, (select count(*) from marked)::int as entries, 1::bigint as n from state s),
     ${messagesOf('queue.sold_out', 'numbered', `format('{"eventId":%s,"eventSlug":%s,"soldOutAt":%s,"entries":%s}', to_json(a.event_id), to_json(:eventSlug::text), to_json(${isoSql('a.sold_out_at')}), a.entries)`)}
   select (select count(*) from marked)::int as entries, exists (select 1 from messages) as outbox_written`,
);

/** The queue sold out (D30): every WAITING entry SOLD_OUT, the queue closed to joins, one `queue.sold_out` message. */
export async function sellOut(tx: EntityManager, queue: LockedQueue): Promise<{ entries: number; outboxWritten: boolean }> {
  const [row] = await executeOnOrm(tx, SOLD_OUT, {
    organizationId: queue.organizationId,
    eventId: queue.eventId,
    eventSlug: queue.eventSlug,
    messageIds: `{${newId('msg')}}`,
  });
  return { entries: Number(row.entries), outboxWritten: row.outbox_written };
}
