/** The message types of D18 (and D20's holds, D21's waiting list, D22's check-in, D29's transfers and exchanges, D19's ticket type changes, D28's series, D30's queue), in the order the docs list them. */
export const WEBHOOK_EVENT_TYPES = [
  'event.created',
  'event.updated',
  'event.published',
  'event.cancelled',
  'event.deleted',
  'ticket_type.created',
  'ticket_type.updated',
  'ticket_type.deleted',
  'booking.created',
  'booking.cancelled',
  'booking.held',
  'booking.confirmed',
  'booking.expired',
  'booking.checked_in',
  'booking.check_in_undone',
  'booking.transferred',
  'booking.exchanged',
  'waitlist.offered',
  'series.created',
  'series.updated',
  'series.deleted',
  'event.rescheduled',
  'queue.admitted',
  'queue.sold_out',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Sent by sendTestWebhook only, whatever the endpoint's filter. */
export const TEST_MESSAGE_TYPE = 'webhook.test';

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

