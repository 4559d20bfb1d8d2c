import type { EntityManager } from '@mikro-orm/postgresql';
import { executeStatement, queryStatement, type PreparedStatements } from '../../platform/db/prepared-statements';
import { sqlStatements } from '../../platform/db/sql-statement';
import { estimatedWaitSeconds, pollAfterSeconds } from './queue.policy';
import { outstandingSql, positionSql, queueSettingsJson } from './queue-sql';
import type { EventQueue, QueueEntry, QueueEntryStatus, QueueStats } from './queue.types';

/*
 * The queue as clients read it (D30): one entry (a poll), an event's figures, events' settings.
 * Organization first: another organization's entry or event is simply not found (D1). The writes
 * are in queue.repository.ts and queue-admission.repository.ts.
 */

const sql = sqlStatements(__filename);

/** An entry's row as the reads (and a join's statement) answer it, with what its hints are worked out from. */
export interface EntryRow {
  id: string;
  event_id: string;
  event_slug: string;
  attendee_email: string;
  attendee_name: string | null;
  status: QueueEntryStatus;
  position: number | null;
  joined_at: string | Date;
  admitted_at: string | Date | null;
  admitted_until: string | Date | null;
  used_at: string | Date | null;
  booking_id: string | null;
  admit_per_minute: number;
  on_sale_at: string | Date | null;
  now: string | Date;
}

const date = (value: string | Date | null): Date | null => (value === null ? null : new Date(value));

/**
 * One statement, whatever the queue's length: the entry (its primary key), its event and queue rows
 * (primary keys), and its position from the Fenwick tree (at most 48 probes of its primary key).
 * An ADMITTED entry past admittedUntil reads EXPIRED.
 */
const ENTRY_BY_ID = sql.statement<{ organizationId: string; id: string }, EntryRow>(
  'queueEntryById',
  `select x.id, x.event_id, e.slug as event_slug, x.attendee_email, x.attendee_name,
          case when x.status = 'ADMITTED' and x.admitted_until <= now() then 'EXPIRED' else x.status end as status,
          ${positionSql('x', 'u')} as position,
          x.joined_at, x.admitted_at, x.admitted_until, x.used_at, x.booking_id,
          e.queue_admit_per_minute as admit_per_minute, e.queue_on_sale_at as on_sale_at, now() as now
     from queue_entries x
     join events e on e.organization_id = x.organization_id and e.id = x.event_id
     join event_queues u on u.organization_id = x.organization_id and u.event_id = x.event_id
    where x.organization_id = :organizationId and x.id = :id`,
);

/** The organization's entry `id` as a poll answers it (`created`: whether this request made it), or null. */
export async function findEntry(em: EntityManager, organizationId: string, id: string, created = false): Promise<QueueEntry | null> {
  const [row] = await executeStatement(em, ENTRY_BY_ID, { organizationId, id });
  return row ? entryOf(row, created) : null;
}

/** An entry as the API shows it, from its row: the wait and the poll hint worked out from its position. */
export function entryOf(row: EntryRow, created: boolean): QueueEntry {
  const position = row.position === null ? null : Number(row.position);
  const admitPerMinute = Number(row.admit_per_minute ?? 1);
  const wait = estimatedWaitSeconds(position, admitPerMinute);
  return {
    id: row.id,
    eventId: row.event_id,
    eventSlug: row.event_slug,
    attendeeEmail: row.attendee_email,
    attendeeName: row.attendee_name,
    status: row.status,
    position,
    estimatedWaitSeconds: wait,
    pollAfterSeconds: pollAfterSeconds(row.status, wait, date(row.on_sale_at), new Date(row.now)),
    joinedAt: new Date(row.joined_at),
    admittedAt: date(row.admitted_at),
    admittedUntil: date(row.admitted_until),
    usedAt: date(row.used_at),
    bookingId: row.booking_id,
    created,
  };
}

type StatsRow = { id: string; waiting: number; admitted: number; used: number; last_minute: number };

const statsOf = (where: string) => `select e.id, coalesce(u.waiting, 0) as waiting, ${outstandingSql('e', 'now()')} as admitted,
          (select count(*) from queue_entries c where c.event_id = e.id and c.status = 'USED')::int as used,
          (select count(*) from queue_entries m where m.event_id = e.id and m.admitted_at > now() - interval '60 seconds')::int as last_minute
     from events e left join event_queues u on u.organization_id = e.organization_id and u.event_id = e.id
    where e.organization_id = :organizationId and ${where}`;
const STATS_BY_SLUG = sql.statement<{ organizationId: string; slug: string }, StatsRow>('queueStatsBySlug', statsOf('e.slug = :slug'));
const STATS_BY_ID = sql.statement<{ organizationId: string; id: string }, StatsRow>('queueStatsById', statsOf('e.id = :id'));

/**
 * The figures of the organization's event (by slug or id; null: no such event): WAITING from the
 * queue's counter; outstanding and used admissions and those of the last minute from their indexes
 * (each bounded by the stock or the rate, not by the queue's length).
 */
export async function queueStatsOf(db: PreparedStatements, organizationId: string, event: { slug: string } | { id: string }): Promise<(QueueStats & { eventId: string }) | null> {
  const [row] = 'slug' in event
    ? await queryStatement(db, STATS_BY_SLUG, { organizationId, slug: event.slug })
    : await queryStatement(db, STATS_BY_ID, { organizationId, id: event.id });
  if (!row) return null;
  return { eventId: row.id, waiting: Number(row.waiting), admitted: Number(row.admitted), used: Number(row.used), admittedLastMinute: Number(row.last_minute) };
}

const SETTINGS_OF_EVENTS = sql.statement<{ eventIds: readonly string[] }, { id: string; queue: EventQueue | null }>(
  'queueSettingsOfEvents',
  `select e.id, ${queueSettingsJson('e')} as queue from events e where e.id = any(:eventIds::text[])`,
);

/** Events' queue settings (null: none) for several events at once (of one response). */
export async function queueSettingsOfEvents(db: PreparedStatements, eventIds: readonly string[]): Promise<Map<string, EventQueue | null>> {
  const rows = await queryStatement(db, SETTINGS_OF_EVENTS, { eventIds });
  return new Map(rows.map((row) => [row.id, row.queue]));
}
