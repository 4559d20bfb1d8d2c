import { request } from '../api';
import { confirmDialog, field, h } from '../dom';
import { formDialog } from '../form-dialog';
import {
  BookingTicketCodeDocument,
  CancelBookingDocument,
  CheckInBookingDocument,
  TransferBookingDocument,
  type BookingFieldsFragment,
  type BookingTicketCodeQuery,
  type BookingTicketCodeQueryVariables,
  type CancelBookingMutation,
  type CancelBookingMutationVariables,
  type CheckInBookingMutation,
  type CheckInBookingMutationVariables,
  type EventDetailQuery,
  type TransferBookingMutation,
  type TransferBookingMutationVariables,
} from '../generated/operations';
import type { PageContext } from '../page';
import { exchange } from './booking-exchange';

type EventDetail = NonNullable<EventDetailQuery['event']>;

/** Runs a booking's mutation; the page says what happened and shows the new counts, or the API's message. */
function act(context: PageContext, done: string, call: () => Promise<unknown>): void {
  call().then(
    () => {
      context.announce(done);
      context.reload();
    },
    (error: unknown) => context.showError(error),
  );
}

async function cancel(context: PageContext, booking: BookingFieldsFragment): Promise<void> {
  const seats = booking.quantity === 1 ? 'Its seat is' : `Its ${booking.quantity} seats are`;
  const confirmed = await confirmDialog(`Cancel the booking of ${booking.attendeeName}?`, `${seats} freed and offered to the waiting list. This cannot be undone.`, 'Cancel booking');
  if (!confirmed) return;
  act(context, `Booking of ${booking.attendeeName} cancelled`, () =>
    request<CancelBookingMutation, CancelBookingMutationVariables>(CancelBookingDocument, { id: booking.id }),
  );
}

async function transfer(context: PageContext, booking: BookingFieldsFragment): Promise<void> {
  const fields = [
    h('p', {}, `The ticket of ${booking.attendeeName} goes to someone else: a new ticket code is issued and the old one no longer opens the door. Seats do not change.`),
    h('label', { for: 'transfer-name' }, 'New attendee name'),
    h('input', { id: 'transfer-name', name: 'attendeeName', required: true, maxlength: 200, autocomplete: 'off' }),
    h('label', { for: 'transfer-email' }, 'New attendee email'),
    h('input', { id: 'transfer-email', name: 'attendeeEmail', type: 'email', required: true, maxlength: 254, autocomplete: 'off' }),
    h('label', { for: 'transfer-reason' }, 'Reason (optional, kept in the audit log)'),
    h('textarea', { id: 'transfer-reason', name: 'reason', rows: 2, maxlength: 500 }),
  ];
  let newName = '';
  const done = await formDialog(`Transfer the ticket of ${booking.attendeeName}`, fields, 'Transfer ticket', async (data) => {
    const reason = field(data, 'reason').trim();
    newName = field(data, 'attendeeName');
    await request<TransferBookingMutation, TransferBookingMutationVariables>(TransferBookingDocument, {
      id: booking.id,
      input: { attendeeName: newName, attendeeEmail: field(data, 'attendeeEmail'), reason: reason === '' ? null : reason },
    });
  });
  if (!done) return;
  context.announce(`Ticket of ${booking.attendeeName} transferred to ${newName}; it has a new code`);
  context.reload();
}

/**
 * A booking's actions, each shown only where the signed-in member's permissions and the booking's state
 * allow it (the server checks both again: a hidden button is a courtesy, not the guard).
 */
export function bookingActions(context: PageContext, event: EventDetail, booking: BookingFieldsFragment): HTMLTableCellElement {
  const { permissions } = context.session;
  const who = booking.attendeeName;
  const cell = h('td', { class: 'row-actions booking-actions' });
  const confirmed = booking.status === 'CONFIRMED';
  if (confirmed && booking.checkedInAt === null && permissions.includes('checkin:write')) {
    cell.append(
      h('button', {
        type: 'button',
        'aria-label': `Check in ${who}`,
        onclick: () =>
          act(context, `${who} checked in`, () => request<CheckInBookingMutation, CheckInBookingMutationVariables>(CheckInBookingDocument, { id: booking.id })),
      }, 'Check in'),
    );
  }
  if (confirmed && booking.checkedInAt === null && permissions.includes('bookings:write')) {
    cell.append(
      h('button', { type: 'button', class: 'secondary', 'aria-label': `Transfer the ticket of ${who}`, onclick: () => void transfer(context, booking) }, 'Transfer'),
      h('button', {
        type: 'button',
        class: 'secondary',
        'aria-label': `Exchange the booking of ${who}`,
        onclick: () => void exchange(context, event.slug, booking).catch((error: unknown) => context.showError(error)),
      }, 'Exchange'),
    );
  }
  if ((confirmed || booking.status === 'HELD') && permissions.includes('bookings:write')) {
    cell.append(h('button', { type: 'button', class: 'danger', 'aria-label': `Cancel the booking of ${who}`, onclick: () => void cancel(context, booking) }, 'Cancel'));
  }
  if (cell.childElementCount === 0) cell.append(h('span', { class: 'hint' }, '—'));
  return cell;
}

/**
 * The ticket code column (D29): a code opens the door, so it is read only when asked for, one booking at
 * a time, and never part of the list's own query.
 */
export function ticketCodeCell(context: PageContext, booking: BookingFieldsFragment): HTMLTableCellElement {
  const cell = h('td', { class: 'ticket-code' });
  if (booking.status !== 'CONFIRMED') {
    cell.append(h('span', { class: 'hint' }, 'none'));
    return cell;
  }
  const who = booking.attendeeName;
  const show: HTMLButtonElement = h('button', {
    type: 'button',
    class: 'secondary',
    'aria-label': `Show code of ${who}`,
    onclick: () =>
      void request<BookingTicketCodeQuery, BookingTicketCodeQueryVariables>(BookingTicketCodeDocument, { id: booking.id }).then(({ booking: read }) => {
        const codeId = `code-${booking.id}`;
        const hide = h('button', {
          type: 'button',
          class: 'secondary',
          'aria-label': `Hide code of ${who}`,
          'aria-describedby': codeId,
          onclick: () => {
            cell.replaceChildren(show);
            show.focus();
          },
        }, 'Hide');
        cell.replaceChildren(h('code', { id: codeId, class: 'code' }, read?.ticketCode ?? 'none yet'), ' ', hide);
        hide.focus();
      }, (error: unknown) => context.showError(error)),
  }, 'Show code');
  cell.append(show);
  return cell;
}
