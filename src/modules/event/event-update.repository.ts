import type { EntityManager } from '@mikro-orm/postgresql';
import { executeStatement } from '../../platform/db/prepared-statements';
import { fragment, sqlStatements } from '../../platform/db/sql-statement';
import type { EventEntity } from './event.entity';
import {
  CHECKED_IN_COUNT_JSON,
  HELD_COUNT_JSON,
  REGISTRATION_COUNT_JSON,
  TICKET_TYPES_JSON,
  asEventRow,
  asTicketTypeRow,
  EVENT_ROW,
  managedEvent,
  ticketTypeRows,
  type AsText,
  type EventCounts,
  type EventRow,
  type TicketTypeRow,
} from './event-rows';
import { byMessages, exampleAudit, exampleOutbox, noteOutbox, OUTBOX_WRITTEN, type OutboxOf, type WithMessages } from './event-change-statements';
import { heldCountSql, registrationCountSql, storedHeldSql } from '../inventory/inventory.repository';
import type { EventSeriesRef } from './event.presenter';
import { checkedInCountSql } from './event.read-repository';
import { queueSettingsJson } from '../queue/queue-sql';
import type { QueueSettings } from '../queue/queue.policy';
import { queueColumnsOf, queueView, storedQueueSettings, type QueueColumns, type QueueSettingsBody } from '../queue/queue.presenter';

const sql = sqlStatements(__filename);

/*
 * An event's update: read without a lock, decided by the policy, then written by one statement that
 * applies only while the event is still as read (the rule of event.repository.ts's changes, D1 too).
 */

/**
 * The event as a change reads it before deciding (no lock: the change's statement checks that the
 * event is still as read, see updateEventIfUnchanged), with its ticket types, or null.
 */
export interface StoredEvent {
  event: EventRow;
  ticketTypes: TicketTypeRow[];
  /** Its inventory slots (src/modules/inventory/; 0: its count is on its row). */
  slots: number;
  /** What updateEventIfUnchanged compares: every field a client sets, as read. */
  version: string;
  /** Seats in use: its registrations and its held seats as stored (a capacity may not go below them). */
  seatsTaken: number;
  /** Its counts as clients read them (what an update that changes nothing answers). */
  counts: EventCounts;
  /** The series it is an occurrence of (D28): its webhook payloads show it. */
  series: EventSeriesRef | null;
  /** Its on-sale queue's settings (D30), or null. */
  queue: QueueSettings | null;
}

/** The fields a client sets (what an update compares to tell whether the event changed meanwhile). */
const SETTABLE_VERSION = (alias: string) =>
  `md5(row(${alias}.slug, ${alias}.title, ${alias}.description, ${alias}.start_date, ${alias}.end_date, ${alias}.timezone, ${alias}.venue,
    ${alias}.venue_address, ${alias}.cover_image, ${alias}.status, ${alias}.capacity, ${alias}.queue_enabled, ${alias}.queue_opens_at,
    ${alias}.queue_on_sale_at, ${alias}.queue_admit_per_minute, ${alias}.queue_admission_minutes, ${alias}.queue_max_seats)::text)`;

const READ_FOR_CHANGE = sql.statement<
  { organizationId: string; slug: string; at: Date },
  AsText<EventRow, 'startDate' | 'endDate' | 'createdAt' | 'updatedAt'> &
    EventCounts & { version: string; ticketTypes: TicketTypeRow[]; slots: number; held: number; series: EventSeriesRef | null; queue: QueueSettingsBody | null }
>(
  'readForChange',
  `select ${EVENT_ROW}, ${SETTABLE_VERSION('e')} as version, ${ticketTypeRows('e', 'k.at')} as "ticketTypes", e.slots, ${storedHeldSql('e')} as held,
            ${queueSettingsJson('e')} as queue,
            ${heldCountSql('e', 'k.at')} as "heldCount", ${checkedInCountSql('e')} as "checkedInCount",
            (select json_build_object('id', s.id, 'slug', s.slug) from series s where s.organization_id = e.organization_id and s.id = e.series_id) as series
       from events e cross join (select :at::timestamptz as at) k where e.organization_id = :organizationId and e.slug = :slug`,
);

/** The event `slug` as a change reads it (see StoredEvent), holds judged at `at`. */
export async function readForChange(em: EntityManager, organizationId: string, slug: string, at: Date): Promise<StoredEvent | null> {
  const [row] = await executeStatement(em, READ_FOR_CHANGE, { organizationId, slug, at });
  if (!row) return null;
  const { version, ticketTypes, slots, held, heldCount, checkedInCount, series, queue, ...event } = row;
  return {
    event: asEventRow(event),
    version,
    ticketTypes: ticketTypes.map(asTicketTypeRow),
    slots,
    seatsTaken: event.registrationCount + held,
    counts: { heldCount, checkedInCount },
    series,
    queue: storedQueueSettings(queue),
  };
}

/** What an update sets: every field a client sets (unchanged ones as read) and the time of the change. */
export type EventChange = Pick<
  EventRow,
  'slug' | 'title' | 'description' | 'startDate' | 'endDate' | 'timezone' | 'venue' | 'venueAddress' | 'coverImage' | 'storedStatus' | 'capacity' | 'updatedAt'
> & { queue: QueueSettings | null };

/**
 * The update of an event read as `stored`, as one statement: it applies only while every field a
 * client sets is still as read (else null: the caller reads again and decides again) and, on the row
 * as locked, the capacity is not below the registrations (the CHECK constraint's condition, D4: a
 * booking made since the read refuses it here instead of failing the statement). With the outbox rows
 * of `outbox` (gated on the updated row). Returns the event as changed, with its counts and its ticket
 * types as the statement read them (holds judged at the change's time).
 */
type UpdateEventParams = Omit<EventChange, 'storedStatus' | 'queue'> &
  QueueColumns & { storedStatus: string; id: string; version: string; detaches: boolean; messages: readonly unknown[] };

// `counted` (the gate) reads the event in the statement's snapshot, as the ticket types are read.
const UPDATE_EVENT = sql.family<
  WithMessages,
  UpdateEventParams,
  { id: string | null; registrationCount: number; ticketTypes: TicketTypeRow[]; outbox_written: boolean } & EventCounts
>(
  'updateEventIfUnchanged',
  ({ messages }) => `with changed as (
       update events e set slug = :slug, title = :title, description = :description, start_date = :startDate, end_date = :endDate, timezone = :timezone, venue = :venue,
                           venue_address = :venueAddress, cover_image = :coverImage, status = :storedStatus, capacity = :capacity, updated_at = :updatedAt,
                           detached = e.detached or (e.series_id is not null and :detaches::boolean),
                           queue_enabled = :queueEnabled::boolean, queue_opens_at = :queueOpensAt::timestamptz, queue_on_sale_at = :queueOnSaleAt::timestamptz,
                           queue_admit_per_minute = :queueAdmitPerMinute::int, queue_admission_minutes = :queueAdmissionMinutes::int, queue_max_seats = :queueMaxSeats::int
        where e.id = :id and ${SETTABLE_VERSION('e')} = :version and (:capacity::int is null or e.registration_count + e.held_count <= :capacity::int)
       returning e.id),
     counted as (
       select e.id, ${registrationCountSql('e')} as registration_count, ${heldCountSql('e', 'k.at')} as held_count,
              ${checkedInCountSql('e')} as checked_in_count, k.at
         from events e join changed c on c.id = e.id cross join (select :updatedAt::timestamptz as at) k),
     ${fragment('messages', messages)}
     select r.id, r.registration_count as "registrationCount", r.held_count as "heldCount", r.checked_in_count as "checkedInCount",
            ${ticketTypeRows('r', 'r.at')} as "ticketTypes", ${OUTBOX_WRITTEN}
       from (select 1) one left join counted r on true`,
  {
    ...byMessages,
    examples: () => {
      const holes = [REGISTRATION_COUNT_JSON('g'), HELD_COUNT_JSON('g'), CHECKED_IN_COUNT_JSON('g'), TICKET_TYPES_JSON('g')];
      return {
        'event.updated': { messages: exampleOutbox('event.updated', 'counted', holes) },
        'event.published, audited': { messages: `${exampleOutbox('event.published', 'counted', holes)},\n     ${exampleAudit('counted', 'event.published')}` },
      };
    },
  },
);

/**
 * `detaches`: the change sets more than the status, so an occurrence of a series becomes detached
 * (D28: series changes skip it; the series' version changes with it, by the trigger of
 * Migration20261130020000_series). An event of no series is not affected.
 */
export async function updateEventIfUnchanged(
  em: EntityManager,
  stored: StoredEvent,
  change: EventChange,
  outbox: OutboxOf,
  detaches = false,
): Promise<EventEntity | null> {
  const messages = outbox('counted');
  const { queue, ...fields } = change;
  const [row] = await executeStatement(em, UPDATE_EVENT({ messages: messages.sql }), {
    ...fields,
    ...queueColumnsOf(queue),
    id: stored.event.id,
    version: stored.version,
    detaches,
    messages: messages.bindings,
  });
  noteOutbox(em, row);
  if (!row?.id) return null;
  const updated = managedEvent(
    em,
    { ...stored.event, ...fields, registrationCount: row.registrationCount },
    row.ticketTypes.map(asTicketTypeRow),
    { heldCount: row.heldCount, checkedInCount: row.checkedInCount },
  );
  updated.queue = queueView(stored.event.id, queue);
  return updated;
}

