import { request } from '../api';
import { confirmDialog, h } from '../dom';
import {
  CancelBookingDocument,
  CheckInBookingDocument,
  type BookingFieldsFragment,
  type CancelBookingMutation,
  type CancelBookingMutationVariables,
  type CheckInBookingMutation,
  type CheckInBookingMutationVariables,
  type EventDetailQuery,
} from '../generated/operations';
import type { PageContext } from '../page';

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

/**
 * A booking's actions, each shown only where the signed-in member's permissions and the booking's state
 * allow it (the server checks both again: a hidden button is a courtesy, not the guard).
 */
export function bookingActions(context: PageContext, _event: EventDetail, booking: BookingFieldsFragment): HTMLTableCellElement {
  const { permissions } = context.session;
  const who = booking.attendeeName;
  const cell = h('td', { class: 'row-actions' });
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
  if ((confirmed || booking.status === 'HELD') && permissions.includes('bookings:write')) {
    cell.append(h('button', { type: 'button', class: 'danger', 'aria-label': `Cancel the booking of ${who}`, onclick: () => void cancel(context, booking) }, 'Cancel'));
  }
  if (cell.childElementCount === 0) cell.append(h('span', { class: 'hint' }, '—'));
  return cell;
}

/** The ticket code column: nothing is read until asked for (filled in once codes exist). */
export function ticketCodeCell(_context: PageContext, _booking: BookingFieldsFragment): HTMLTableCellElement {
  return h('td', {}, '—');
}
