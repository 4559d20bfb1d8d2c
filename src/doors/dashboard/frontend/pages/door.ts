import { refusalOf, request, type Refusal } from '../api';
import { field, formatDate, h, readOnlyNote } from '../dom';
import { eventHref, ticketTypeName } from '../event-format';
import {
  CheckInByCodeDocument,
  EventDetailDocument,
  type BookingFieldsFragment,
  type CheckInByCodeMutation,
  type CheckInByCodeMutationVariables,
  type EventDetailQuery,
  type EventDetailQueryVariables,
} from '../generated/operations';
import type { Page, Route } from '../page';

type EventDetail = NonNullable<EventDetailQuery['event']>;

const readEvent = (slug: string) => request<EventDetailQuery, EventDetailQueryVariables>(EventDetailDocument, { slug });

/** The event's counts, read again after each scan (check-ins count bookings, D22; registrations seats). */
function countText(event: EventDetail): string {
  return `${event.checkedInCount} ${event.checkedInCount === 1 ? 'booking' : 'bookings'} checked in · ${event.registrationCount} confirmed seats`;
}

function admitted(booking: BookingFieldsFragment): HTMLElement {
  return h(
    'div',
    { class: 'door-answer ok' },
    h('p', { class: 'door-verdict' }, 'Checked in: let them in'),
    h('p', {}, h('strong', {}, booking.attendeeName), ` · ${booking.quantity} × ${ticketTypeName(booking.ticketType)}`),
  );
}

const when = (value: unknown) => (typeof value === 'string' ? formatDate(value) : 'an earlier time');

/** What the door says for each refusal of D22 and D29, plainly; a WRONG_EVENT names the ticket's event. */
async function refused(refusal: Refusal): Promise<HTMLElement> {
  const answer = (verdict: string, ...lines: Array<string | Node>) =>
    h('div', { class: 'door-answer refused' }, h('p', { class: 'door-verdict' }, verdict), ...lines.map((line) => h('p', {}, line)));
  switch (refusal.code) {
    case 'ALREADY_CHECKED_IN':
      return answer('Already checked in: do not let in again', `This ticket was checked in at ${when(refusal.details.checkedInAt)}.`);
    case 'TICKET_TRANSFERRED':
      return answer(
        'Replaced ticket: do not let in',
        `This code was replaced at ${when(refusal.details.transferredAt)} (the ticket was transferred or exchanged). Ask for the current ticket.`,
      );
    case 'WRONG_EVENT': {
      const slug = typeof refusal.details.eventSlug === 'string' ? refusal.details.eventSlug : '';
      // The title when this member may read it; the slug in any case.
      const title = slug ? await readEvent(slug).then(({ event }) => event?.title, () => undefined) : undefined;
      return answer('Wrong event: do not let in', `This ticket is for ${title ? `${title} (${slug})` : slug || 'another event'}.`);
    }
    case 'TICKET_NOT_FOUND':
      return answer('Unknown code: do not let in', 'No ticket of this organization has this code. Check that the whole code was scanned.');
    case 'BOOKING_NOT_CONFIRMED':
      return answer('Not a confirmed booking: do not let in', 'The booking is held, cancelled or expired.');
    default:
      return answer('Not checked in', refusal.message);
  }
}

function doorPage(slug: string): Page {
  return {
    path: `events/${slug}/door`,
    title: 'Door check-in',
    section: 'events',
    async render(context) {
      const { main } = context;
      const { event } = await readEvent(slug);
      if (!event) throw new Error(`There is no event ${slug}`);
      context.setTitle(`Door check-in: ${event.title}`);
      const count = h('p', { class: 'hint', 'aria-live': 'polite' }, countText(event));
      main.append(
        h('nav', { class: 'actions', 'aria-label': 'Event' }, h('a', { href: eventHref(event.slug) }, `Back to ${event.title}`), h('a', { href: '#/events' }, 'All events')),
        count,
      );
      if (!context.session.permissions.includes('checkin:write')) {
        main.append(readOnlyNote('only organization admins check attendees in at the door.'));
        return;
      }
      // The answer to the last scan, read out at once (a gate does not wait).
      const result = h('section', { class: 'door-result', 'aria-label': 'Scan result', 'aria-live': 'assertive', 'aria-atomic': 'true' });
      const input = h('input', {
        id: 'door-code',
        name: 'code',
        required: true,
        autocomplete: 'off',
        autocapitalize: 'off',
        spellcheck: 'false',
        'aria-describedby': 'door-code-hint',
      });
      const form = h(
        'form',
        { class: 'card', 'aria-labelledby': 'door-title' },
        h('h2', { id: 'door-title' }, 'Scan a ticket'),
        h('label', { for: 'door-code' }, 'Ticket code'),
        input,
        h('p', { id: 'door-code-hint', class: 'hint' }, 'Type the code, or scan it with a scanner that types (it presses Enter). The field is ready for the next ticket after each answer.'),
        h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Check in')),
      );
      form.addEventListener('submit', (submitted) => {
        submitted.preventDefault();
        const code = field(new FormData(form), 'code').trim();
        input.value = '';
        if (code === '') return;
        result.replaceChildren(h('p', { class: 'hint' }, 'Checking…'));
        request<CheckInByCodeMutation, CheckInByCodeMutationVariables>(CheckInByCodeDocument, { code, eventSlug: slug })
          .then((answer) => admitted(answer.checkInByCode), (error: unknown) => refused(refusalOf(error)))
          .then((shown) => {
            result.replaceChildren(shown);
            input.focus();
            return readEvent(slug);
          })
          .then(({ event: fresh }) => {
            if (fresh) count.textContent = countText(fresh);
          }, (error: unknown) => context.showError(error));
      });
      main.append(form, result);
      input.focus();
    },
  };
}

export const doorRoute: Route = { pattern: /^events\/([^/]+)\/door$/, page: ([slug]) => doorPage(slug) };
