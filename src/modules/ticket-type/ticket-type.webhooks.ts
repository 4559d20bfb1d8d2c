import { hole, outboxCtes, type SqlPart } from '../../platform/outbox/outbox';

/*
 * The webhook messages of ticket type changes (D19: ticket_type.created / updated / deleted),
 * written by the change's own statement (outboxCtes), like the event's (event.webhooks.ts): no message
 * without its change, none when the statement changes nothing. The data is the ticket type as an
 * event's `ticketTypes` shows it (presentTicketType: id, name, price, currency, quantity, sold, held),
 * with its event's `eventId` and `eventSlug`; for ticket_type.deleted, the ticket type as it was.
 */

export type TicketTypeWebhookType = 'ticket_type.created' | 'ticket_type.updated' | 'ticket_type.deleted';

/** A statement's outbox CTEs, gated on its CTE `gate` (the changed row, see TICKET_TYPE_GATE_COLUMNS). */
export type TicketTypeOutbox = (gate: string) => SqlPart;

/**
 * The gate's columns the message reads: `id`, `name`, `price`, `currency`, `quantity`, `sold` and
 * `held` (as clients read them), `event` (the event's id) and `event_slug`. Every value is the statement's (the row
 * as changed), in presentTicketType's key order, the price a JSON number.
 */
const HOLES = [
  'to_json(g.id)::text',
  'to_json(g.name)::text',
  'to_json(g.price::float8)::text',
  'to_json(g.currency)::text',
  'to_json(g.quantity)::text',
  'to_json(g.sold)::text',
  'to_json(g.held)::text',
  'to_json(g.event)::text',
  'to_json(g.event_slug)::text',
];

export function ticketTypeOutbox(organizationId: string, type: TicketTypeWebhookType): TicketTypeOutbox {
  const data = { id: hole(), name: hole(), price: hole(), currency: hole(), quantity: hole(), sold: hole(), held: hole(), eventId: hole(), eventSlug: hole() };
  return (gate) => outboxCtes(organizationId, type, gate, data, HOLES);
}
