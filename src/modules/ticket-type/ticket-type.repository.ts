import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import { executeStatement } from '../../platform/db/prepared-statements';
import { fragment, sqlStatements } from '../../platform/db/sql-statement';
import { hole, noteOutboxWrite, outboxCtes } from '../../platform/outbox/outbox';
import type { TicketTypeOutbox } from './ticket-type.webhooks';
import { newId } from '../../foundation/ids';
import { MAX_TICKET_TYPES } from './ticket-type.policy';
import { TicketTypeEntity } from './ticket-type.entity';
import { slotNewTicketType, soldSql, storedTypeHeldSql, typeHeldSql } from '../inventory/inventory.repository';

const sql = sqlStatements(__filename);

/*
 * The only place that reaches the ticket_types table. Changes lock the event row first, then the
 * ticket type row: the order bookings use, so a quantity change and a booking of the same type never
 * interleave or deadlock. The changes of the ticket type commands are SQL statements (as bookings, D7): no
 * flush; the entity the doors render is built from the row the statement returns.
 */

/** A ticket_types row as TicketTypeEntity's properties (the event by id), `held` as clients read it (D20). */
interface TicketTypeRow {
  id: string;
  event: string;
  name: string;
  price: string | number;
  currency: string;
  quantity: number;
  sold: number;
  held: number;
  /** ISO 8601 text. */
  createdAt: string;
}

/** The row a statement returns, its tickets held now given as the SQL `held` (D20: TicketType.held, in its webhook message too). */
const returning = (held: string) =>
  `t.id, t.event_id as event, t.name, t.price, t.currency, t.quantity, ${soldSql('t')} as sold, ${held} as held, to_json(t.created_at) #>> '{}' as "createdAt"`;

/** The columns of a statement's changed row: returning's, and the event's slug for the webhook message (ticket-type.webhooks.ts). */
const CHANGED_COLUMNS = 'id, event, name, price, currency, quantity, sold, held, "createdAt"';

/** The last select of a statement with outbox CTEs tells whether it wrote a message (the unit of work wakes the workers after the commit). */
const OUTBOX_WRITTEN = 'exists (select 1 from outbox_message) as outbox_written';

function noteOutbox(em: EntityManager, row: { outbox_written?: boolean } | undefined): void {
  if (row?.outbox_written) noteOutboxWrite(em);
}

/** The row's values as the entity's (a numeric comes as text, the timestamp as ISO text). */
const asEntityData = (row: Omit<TicketTypeRow, 'held'>) => ({ ...row, price: Number(row.price), createdAt: new Date(row.createdAt) });

/** The ticket type's row as a managed entity, registered as loaded (a later flush finds nothing to write), with its held. */
function managed(em: EntityManager, { held, ...row }: TicketTypeRow): TicketTypeEntity {
  const entity = em.merge(TicketTypeEntity, asEntityData(row), { refresh: true });
  entity.held = held;
  return entity;
}

/**
 * Locks the event of the organization's ticket type `id` (the first lock of every change of it), for a
 * slotted ticket type's change that needs its slots locked next: in a transaction. False when not found.
 */
export async function lockEventOfTicketType(em: EntityManager, organizationId: string, id: string): Promise<boolean> {
  const rows = await executeStatement(em, LOCK_EVENT, { id, organizationId });
  return rows.length > 0;
}

/** The event's locking read, as the first CTE of a statement (`locked`: the organization's event of the ticket type `:id`). */
const LOCK_EVENT_OF_TICKET_TYPE = `locked as (
       select e.id, e.slug from events e
        where e.id = (select t.event_id from ticket_types t where t.id = :id) and e.organization_id = :organizationId
          for no key update)`;

const LOCK_EVENT = sql.statement<{ id: string; organizationId: string }, { id: string }>('lockEventOfTicketType', `with ${LOCK_EVENT_OF_TICKET_TYPE} select id from locked`);

/** A statement with the outbox CTEs of a change: one variant per text of those CTEs (their bindings: the parameter `messages`). */
interface WithMessages {
  readonly messages: string;
}

/** What the snapshots show for the outbox CTEs (ticket-type.webhooks.ts: every value of the message read from the gate). */
const exampleOutbox = (type: string, gate: string): string => {
  const fields = ['id', 'name', 'price::float8', 'currency', 'quantity', 'sold', 'held', 'event', 'event_slug'];
  return outboxCtes('org_example', type, gate, Object.fromEntries(fields.map((field) => [field, hole()])), fields.map((field) => `to_json(g.${field})::text`)).sql;
};

const STORED = sql.statement<{ id: string; organizationId: string }, { id: string; sold: number; slots: number }>(
  'storedTicketType',
  `select t.id, ${soldSql('t')} + ${storedTypeHeldSql('t')} as sold, t.slots from ticket_types t join events e on e.id = t.event_id where t.id = :id and e.organization_id = :organizationId`,
);

/** The organization's ticket type `id` as stored (no lock), or TICKET_TYPE_NOT_FOUND: what a refused change reports. */
export async function storedTicketType(em: EntityManager, organizationId: string, id: string): Promise<{ id: string; sold: number; slots: number }> {
  const [row] = await executeStatement(em, STORED, { id, organizationId });
  if (!row) throw AppError.ticketTypeNotFound(id);
  return row;
}

const LOCK_EVENT_BY_SLUG = sql.statement<{ organizationId: string; slug: string }, { id: string; slots: number }>(
  'lockEventBySlug',
  'select id, slots from events where organization_id = :organizationId and slug = :slug for no key update',
);

const ADD = sql.family<
  WithMessages,
  { eventId: string; id: string; organizationId: string; name: string; price: number; currency: string; quantity: number; createdAt: Date; max: number; eventSlug: string; messages: readonly unknown[] },
  TicketTypeRow & { count: number; outbox_written: boolean }
>(
  'addTicketType',
  ({ messages }) => `with counted as (select count(*)::int as count from ticket_types where event_id = :eventId),
     added as (
       insert into ticket_types (id, organization_id, event_id, name, price, currency, quantity, sold, created_at)
       select :id, :organizationId, :eventId, :name, :price, :currency, :quantity, 0, :createdAt from counted where count < :max
       returning *),
     gate as (select t.id, t.event_id as event, t.name, t.price, t.currency, t.quantity, 0 as sold, 0 as held, :eventSlug::text as event_slug from added t),
     ${fragment('messages', messages)}
     select c.count, ${returning('0')}, ${OUTBOX_WRITTEN} from counted c left join added t on true`,
  { key: (variant) => variant.messages, examples: () => ({ 'ticket_type.created': { messages: exampleOutbox('ticket_type.created', 'gate') } }) },
);

/**
 * Adds a ticket type to the organization's event `eventSlug` while it has fewer than MAX_TICKET_TYPES
 * (D6). Takes the event's row lock and counts its types in a later statement than the lock, so the
 * count sees every type added by whoever held it before: call it in a transaction. Returns the new
 * ticket type, or `{ eventFound, count }` when it added none.
 */
export async function lockEventAndAddTicketType(
  em: EntityManager,
  organizationId: string,
  eventSlug: string,
  fields: { name: string; price: number; currency: string; quantity: number },
  /** ticket_type.created, written by the insert's statement. */
  outbox: TicketTypeOutbox,
): Promise<TicketTypeEntity | { eventFound: boolean; count: number }> {
  const [event] = await executeStatement(em, LOCK_EVENT_BY_SLUG, { organizationId, slug: eventSlug });
  if (!event) return { eventFound: false, count: 0 };
  const messages = outbox('gate');
  const [row] = await executeStatement(em, ADD({ messages: messages.sql }), {
    eventId: event.id,
    id: newId('tt'),
    organizationId,
    ...fields,
    createdAt: new Date(),
    max: MAX_TICKET_TYPES,
    eventSlug,
    messages: messages.bindings,
  });
  noteOutbox(em, row);
  if (!row.id) return { eventFound: true, count: row.count };
  const { count: _count, outbox_written: _written, ...added } = row;
  // On a slotted event (src/modules/inventory/), its quantity is split over the event's slots too.
  if (event.slots > 0) await slotNewTicketType(em, event.id, added.id);
  return managed(em, added);
}

const UPDATE = sql.family<
  WithMessages & { slotted: boolean },
  { id: string; organizationId: string; name: string | null; price: number | null; currency: string | null; quantity: number | null; at: Date; messages: readonly unknown[] },
  TicketTypeRow & { outbox_written: boolean }
>(
  'updateTicketTypeFields',
  ({ messages, slotted }) => `with ${LOCK_EVENT_OF_TICKET_TYPE},
     changed as (
       update ticket_types t set name = coalesce(:name, t.name), price = coalesce(:price::numeric, t.price), currency = coalesce(:currency, t.currency),
                                 quantity = coalesce(:quantity::int, t.quantity)
         from locked l
        where t.id = :id and t.event_id = l.id and t.sold + t.held <= coalesce(:quantity::int, t.quantity) and ${slotted ? 't.slots > 0' : 't.slots = 0'}
       returning ${returning(typeHeldSql('t', ':at::timestamptz'))}, l.slug as event_slug),
     ${fragment('messages', messages)}
     select ${CHANGED_COLUMNS}, ${OUTBOX_WRITTEN} from (select 1) one left join changed on true`,
  {
    key: ({ messages, slotted }) => `${slotted ? 'slotted' : 'row'}:${messages}`,
    examples: () => ({
      'ticket_type.updated': { messages: exampleOutbox('ticket_type.updated', 'changed'), slotted: false },
      'no field given, slotted': { messages: exampleOutbox('ticket_type.updated', '(select * from changed where false)'), slotted: true },
    }),
  },
);

/**
 * Changes the given fields of the organization's ticket type `id`, as one statement that locks its
 * event, then the ticket type, and applies only while the quantity stays at least the tickets sold
 * (D6, checked on the row as locked). Returns it as changed, its holds judged at `at`, or null (not
 * found, or the quantity would go below sold: the caller works out which).
 */
export async function updateTicketTypeFields(
  em: EntityManager,
  organizationId: string,
  id: string,
  fields: { name?: string | null; price?: number | null; currency?: string | null; quantity?: number | null },
  /** ticket_type.updated, written by the update's statement. */
  outbox: TicketTypeOutbox,
  /** A slotted ticket type, its slots locked and the quantity checked against them by the caller. */
  slotted = false,
  at: Date = new Date(),
): Promise<TicketTypeEntity | null> {
  // An input without a field changes nothing: it answers the ticket type and sends no message.
  const changesAField = [fields.name, fields.price, fields.currency, fields.quantity].some((value) => value != null);
  const messages = outbox(changesAField ? 'changed' : '(select * from changed where false)');
  const [row] = await executeStatement(em, UPDATE({ messages: messages.sql, slotted }), {
    id,
    organizationId,
    name: fields.name ?? null,
    price: fields.price ?? null,
    currency: fields.currency ?? null,
    quantity: fields.quantity ?? null,
    at,
    messages: messages.bindings,
  });
  noteOutbox(em, row);
  if (!row?.id) return null;
  const { outbox_written: _written, ...changed } = row;
  return managed(em, changed);
}

const REMOVE = sql.family<WithMessages & { slotted: boolean }, { id: string; organizationId: string; messages: readonly unknown[] }, TicketTypeRow & { outbox_written: boolean }>(
  'removeUnsoldTicketType',
  ({ messages, slotted }) => `with ${LOCK_EVENT_OF_TICKET_TYPE},
     removed as (
       delete from ticket_types t using locked l
        where t.id = :id and t.event_id = l.id and t.sold = 0 and t.held = 0 and ${slotted ? 't.slots > 0' : 't.slots = 0'}
       returning ${returning('0')}, l.slug as event_slug),
     ${fragment('messages', messages)}
     select ${CHANGED_COLUMNS}, ${OUTBOX_WRITTEN} from (select 1) one left join removed on true`,
  {
    key: ({ messages, slotted }) => `${slotted ? 'slotted' : 'row'}:${messages}`,
    examples: () => ({ 'ticket_type.deleted': { messages: exampleOutbox('ticket_type.deleted', 'removed'), slotted: false } }),
  },
);

/**
 * Removes the organization's ticket type `id` as one statement that locks its event, then the ticket
 * type, only while nothing is sold or held of it (D6, checked on the row as locked). Returns it as it
 * was (not managed: it is gone), or null (not found, or sold: the caller works out which).
 */
export async function removeUnsoldTicketType(
  em: EntityManager,
  organizationId: string,
  id: string,
  /** ticket_type.deleted, written by the delete's statement. */
  outbox: TicketTypeOutbox,
  /** A slotted ticket type, its slots locked and found empty by the caller. */
  slotted = false,
): Promise<TicketTypeEntity | null> {
  const messages = outbox('removed');
  const [row] = await executeStatement(em, REMOVE({ messages: messages.sql, slotted }), { id, organizationId, messages: messages.bindings });
  noteOutbox(em, row);
  if (!row?.id) return null;
  const { outbox_written: _written, held, ...removed } = row;
  const entity = em.create(TicketTypeEntity, asEntityData(removed), { managed: false, persist: false });
  entity.held = held;
  return entity;
}
