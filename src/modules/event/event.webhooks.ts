import { hole, outboxCtes } from '../../platform/outbox/outbox';
import type { WebhookEventType } from '../webhook/webhook-types';
import { EventStatus } from './event-status';
import { presentEvent, type EventFields, type TicketTypeFields } from './event.presenter';
import type { OutboxOf } from './event-change-statements';
import { CHECKED_IN_COUNT_JSON, HELD_COUNT_JSON, REGISTRATION_COUNT_JSON, TICKET_TYPES_JSON } from './event-rows';

/*
 * The webhook messages of event changes (D18), written by the change's own statement (outboxCtes): the
 * data is the event as GET /v1/events/{slug} returns it (presentEvent, its counts included), or
 * `{ id, slug }` for event.deleted. What the command knows is put in directly; what only the statement
 * knows (the counts and the ticket types as it reads them, the id of a deleted event) is filled in by it.
 */

/** event.created: the new event with its ticket types, all known before the statement (no booking yet). */
export function eventCreatedOutbox(organizationId: string, event: EventFields, ticketTypes: readonly TicketTypeFields[]): OutboxOf {
  const data = presentEvent(event, ticketTypes, { heldCount: 0, checkedInCount: 0 });
  return (gate) => outboxCtes(organizationId, 'event.created', gate, data);
}

/**
 * event.updated / published / cancelled (see changeTypeOf) for the event as changed: every field set by
 * the change, the counts and ticket types read by its statement from its gate (`g`).
 */
export function eventChangedOutbox(organizationId: string, type: WebhookEventType, event: EventFields): OutboxOf {
  const counted = { registrationCount: hole(), heldCount: hole(), checkedInCount: hole(), ticketTypes: hole() };
  const data = { ...presentEvent(event, [], { heldCount: 0, checkedInCount: 0 }), ...counted };
  const holes = [REGISTRATION_COUNT_JSON('g'), HELD_COUNT_JSON('g'), CHECKED_IN_COUNT_JSON('g'), TICKET_TYPES_JSON('g')];
  return (gate) => outboxCtes(organizationId, type, gate, data, holes);
}

/** event.deleted: the id (read by the statement) and the slug. */
export function eventDeletedOutbox(organizationId: string, slug: string): OutboxOf {
  return (gate) => outboxCtes(organizationId, 'event.deleted', gate, { id: hole(), slug }, ['to_json(g.id)::text']);
}

/**
 * The message an update sends: none when it changes nothing; event.published or event.cancelled when
 * it moves the stored status there, else event.updated.
 */
export function changeTypeOf(changed: boolean, from: EventStatus, to: EventStatus): WebhookEventType | undefined {
  if (!changed) return undefined;
  if (to !== from && to === EventStatus.PUBLISHED) return 'event.published';
  if (to !== from && to === EventStatus.CANCELLED) return 'event.cancelled';
  return 'event.updated';
}
