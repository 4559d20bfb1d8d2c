import { h } from '../dom';

/**
 * The event types an endpoint can subscribe to (D18, the lifecycle's and the ticket types' included), as the forms offer them.
 * The same list as the service's (src/modules/webhook/webhook-types.ts WEBHOOK_EVENT_TYPES), kept here because the
 * dashboard reaches the service through its API only (.dependency-cruiser.cjs, cli-and-dashboard-through-commands);
 * test/dashboard-browser.test.ts checks the form offers every one of the service's.
 */
const EVENT_TYPES = [
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
];

/** A checkbox per event type, those of `checked` ticked. */
export function typeCheckboxes(checked: readonly string[]): HTMLElement[] {
  return EVENT_TYPES.map((type) => h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'eventTypes', value: type, checked: checked.includes(type) }), type));
}

/** The event types ticked in a form. */
export function checkedTypes(data: FormData): string[] {
  return data.getAll('eventTypes').filter((value): value is string => typeof value === 'string');
}
