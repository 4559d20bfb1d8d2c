import { request } from '../api';
import { CursorPages, cursorPager } from '../cursor-pages';
import { field, formatDate, h, readOnlyNote, scrollingTable } from '../dom';
import { ticketTypeName } from '../event-format';
import {
  EventBookingsDocument,
  type BookingFieldsFragment,
  type BookingStatus,
  type EventBookingsQuery,
  type EventBookingsQueryVariables,
  type EventDetailQuery,
} from '../generated/operations';
import type { PageContext } from '../page';
import { bookingActions, ticketCodeCell } from './booking-actions';

type EventDetail = NonNullable<EventDetailQuery['event']>;

const PAGE_SIZE = 20;
const STATUSES: readonly BookingStatus[] = ['CONFIRMED', 'HELD', 'CANCELLED', 'EXPIRED'];

/** The event whose bookings are shown, their status filter and the pages walked (kept across re-renders). */
let shown: { slug: string; status: BookingStatus | ''; pages: CursorPages } = { slug: '', status: '', pages: new CursorPages() };

function statusText(booking: BookingFieldsFragment): string {
  if (booking.status === 'HELD' && booking.expiresAt) return `HELD until ${formatDate(booking.expiresAt)}`;
  if (booking.status === 'CANCELLED' && booking.cancelledAt) return `CANCELLED ${formatDate(booking.cancelledAt)}`;
  return booking.status;
}

function bookingRow(context: PageContext, event: EventDetail, booking: BookingFieldsFragment, withActions: boolean): HTMLTableRowElement {
  return h(
    'tr',
    {},
    h('td', {}, booking.attendeeName, h('div', { class: 'hint' }, booking.attendeeEmail)),
    h('td', { class: 'tickets' }, `${booking.quantity} × ${ticketTypeName(booking.ticketType)}`),
    h('td', {}, statusText(booking)),
    h('td', { class: 'when' }, formatDate(booking.createdAt)),
    h('td', { class: 'when' }, booking.checkedInAt ? formatDate(booking.checkedInAt) : 'not yet'),
    ticketCodeCell(context, booking),
    withActions ? bookingActions(context, event, booking) : null,
  );
}

function statusFilter(context: PageContext): HTMLFormElement {
  const form = h(
    'form',
    { class: 'actions', 'aria-label': 'Filter the bookings' },
    h('label', { for: 'bookings-status', class: 'inline' }, 'Booking status'),
    h(
      'select',
      { id: 'bookings-status', name: 'status' },
      h('option', { value: '', selected: shown.status === '' }, 'Any status'),
      ...STATUSES.map((status) => h('option', { value: status, selected: shown.status === status }, status)),
    ),
    h('button', { type: 'submit', class: 'secondary' }, 'Show bookings'),
  );
  form.addEventListener('submit', (submitted) => {
    submitted.preventDefault();
    shown = { ...shown, status: field(new FormData(form), 'status') as BookingStatus | '', pages: new CursorPages() };
    context.reload();
  });
  return form;
}

/** The event's bookings, a page at a time (cursors, D25), with what the signed-in member may do to each. */
export async function bookingsSection(context: PageContext, event: EventDetail): Promise<HTMLElement> {
  if (shown.slug !== event.slug) shown = { slug: event.slug, status: '', pages: new CursorPages() };
  const section = h('section', { 'aria-labelledby': 'bookings-title' }, h('h2', { id: 'bookings-title' }, 'Bookings'));
  const { permissions } = context.session;
  if (!permissions.includes('bookings:read')) {
    section.append(h('p', { class: 'note' }, 'Reading bookings needs the bookings:read permission.'));
    return section;
  }
  const withActions = permissions.includes('bookings:write') || permissions.includes('checkin:write');
  if (!withActions) section.append(readOnlyNote('you see the bookings and may show a ticket’s code; only organization admins cancel, check in, transfer or exchange bookings.'));
  section.append(statusFilter(context));
  const variables: EventBookingsQueryVariables = { eventSlug: event.slug, limit: PAGE_SIZE, after: shown.pages.after, status: shown.status || null };
  const { bookings } = await request<EventBookingsQuery, EventBookingsQueryVariables>(EventBookingsDocument, variables);
  const reload = () => context.reload();
  if (bookings.bookings.length === 0) {
    section.append(h('p', {}, shown.pages.number === 1 ? 'No bookings match.' : 'No more bookings.'));
  } else {
    const headers = ['Attendee', 'Tickets', 'Status', 'Booked', 'Checked in', 'Ticket code', ...(withActions ? ['Actions'] : [])];
    section.append(scrollingTable('Bookings', headers, bookings.bookings.map((booking) => bookingRow(context, event, booking, withActions))));
  }
  if (bookings.bookings.length > 0 || shown.pages.number > 1) section.append(cursorPager('Booking pages', shown.pages, bookings, PAGE_SIZE, ['booking', 'bookings'], reload));
  return section;
}
