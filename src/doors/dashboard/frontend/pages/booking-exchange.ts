import { request } from '../api';
import { field, h } from '../dom';
import { formatInZone } from '../event-format';
import { formDialog } from '../form-dialog';
import {
  EventDetailDocument,
  EventsDocument,
  ExchangeBookingDocument,
  type BookingFieldsFragment,
  type EventDetailQuery,
  type EventDetailQueryVariables,
  type EventsQuery,
  type EventsQueryVariables,
  type ExchangeBookingMutation,
  type ExchangeBookingMutationVariables,
} from '../generated/operations';
import type { PageContext } from '../page';

/** The most target events the form offers: the organization's published events, soonest first. */
const TARGETS = 100;

/** The target's ticket types as options, each with its free tickets; none when it sells without types. */
async function fillTicketTypes(select: HTMLSelectElement, hint: HTMLElement, slug: string): Promise<void> {
  select.replaceChildren();
  select.disabled = true;
  select.required = false;
  hint.textContent = '';
  if (slug === '') return;
  const { event } = await request<EventDetailQuery, EventDetailQueryVariables>(EventDetailDocument, { slug });
  const types = event?.ticketTypes ?? [];
  if (types.length === 0) {
    hint.textContent = 'That event sells seats without ticket types: none to choose.';
    return;
  }
  select.append(
    h('option', { value: '' }, 'Choose a ticket type'),
    ...types.map((type) => h('option', { value: type.id }, `${type.name} (${Math.max(0, type.quantity - type.sold - type.held)} free)`)),
  );
  select.disabled = false;
  // The server asks for a ticket type when the target has them (D29); the form says so first.
  select.required = true;
}

/**
 * Moves a booking to another event of the organization (D29): the seats are taken there and freed here in
 * one transaction, or nothing changes (a full target answers SOLD_OUT in the dialog).
 */
export async function exchange(context: PageContext, eventSlug: string, booking: BookingFieldsFragment): Promise<void> {
  const variables: EventsQueryVariables = { limit: TARGETS, after: null, status: 'PUBLISHED', search: null, startsAfter: null, startsBefore: null, orderBy: 'START_DATE_ASC', series: null };
  const { events } = await request<EventsQuery, EventsQueryVariables>(EventsDocument, variables);
  const targets = events.events.filter((event) => event.slug !== eventSlug);
  const typeSelect = h('select', { id: 'exchange-ticket-type', name: 'ticketTypeId', disabled: true, 'aria-describedby': 'exchange-ticket-type-hint' });
  const typeHint = h('p', { id: 'exchange-ticket-type-hint', class: 'hint', 'aria-live': 'polite' });
  const eventSelect = h(
    'select',
    { id: 'exchange-event', name: 'eventSlug', required: true },
    h('option', { value: '' }, targets.length === 0 ? 'No other published event' : 'Choose an event'),
    ...targets.map((event) => h('option', { value: event.slug }, `${event.title} · ${formatInZone(event.startDate, event.timezone)}`)),
  );
  eventSelect.addEventListener('change', () => {
    fillTicketTypes(typeSelect, typeHint, eventSelect.value).catch((error: unknown) => context.showError(error));
  });
  const seats = booking.quantity === 1 ? 'its seat' : `its ${booking.quantity} seats`;
  const fields = [
    h('p', {}, `The booking of ${booking.attendeeName} moves with ${seats} to the event you choose; a new ticket code is issued and the seats here are offered to the waiting list.`),
    h('label', { for: 'exchange-event' }, 'Move to event'),
    eventSelect,
    h('label', { for: 'exchange-ticket-type' }, 'Ticket type there'),
    typeSelect,
    typeHint,
  ];
  let target = '';
  const done = await formDialog(`Exchange the booking of ${booking.attendeeName}`, fields, 'Exchange booking', async (data) => {
    const ticketTypeId = field(data, 'ticketTypeId');
    target = eventSelect.selectedOptions[0]?.textContent ?? field(data, 'eventSlug');
    await request<ExchangeBookingMutation, ExchangeBookingMutationVariables>(ExchangeBookingDocument, {
      id: booking.id,
      input: { eventSlug: field(data, 'eventSlug'), ticketTypeId: ticketTypeId === '' ? null : ticketTypeId },
    });
  });
  if (!done) return;
  context.announce(`Booking of ${booking.attendeeName} moved to ${target}`);
  context.reload();
}
