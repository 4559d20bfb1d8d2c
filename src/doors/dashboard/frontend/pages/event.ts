import { request } from '../api';
import { h, scrollingTable } from '../dom';
import { eventHref, freeSeats, schedule, seriesHref } from '../event-format';
import { EventDetailDocument, type EventDetailQuery, type EventDetailQueryVariables, type TicketTypeFieldsFragment } from '../generated/operations';
import type { Page, Route } from '../page';
import { bookingsSection } from './event-bookings';
import { queueSection } from './event-queue';

type EventDetail = NonNullable<EventDetailQuery['event']>;

/** The event's facts: status, when, where, and its counts as D20 and D22 define them. */
function facts(event: EventDetail): HTMLElement {
  const free = freeSeats(event);
  const pairs: Array<[string, string | Node]> = [
    ['Status', event.status],
    ['When', schedule(event)],
    ['Venue', [event.venue, event.venueAddress].filter(Boolean).join(', ') || '—'],
    ['Capacity', event.capacity === null ? 'no limit' : String(event.capacity)],
    ['Booked (confirmed seats)', String(event.registrationCount)],
    ['Held now', String(event.heldCount)],
    ['Free seats', free === null ? 'no limit' : String(free)],
    ['Checked in (bookings)', String(event.checkedInCount)],
  ];
  // An occurrence of a series (D28) links back to it; a series' slug is what the API gives (Event.series { id slug }).
  if (event.series) pairs.splice(1, 0, ['Series', h('a', { href: seriesHref(event.series.slug) }, `Part of series ${event.series.slug}`)]);
  return h(
    'section',
    { 'aria-labelledby': 'event-facts-title' },
    h('h2', { id: 'event-facts-title', class: 'visually-hidden' }, 'Event details'),
    h('dl', { class: 'facts' }, ...pairs.flatMap(([name, value]) => [h('dt', {}, name), h('dd', {}, value)])),
  );
}

function ticketTypeRow(type: TicketTypeFieldsFragment): HTMLTableRowElement {
  const price = new Intl.NumberFormat(undefined, { style: 'currency', currency: type.currency }).format(type.price);
  return h(
    'tr',
    {},
    h('td', {}, type.name),
    h('td', {}, price),
    h('td', {}, String(type.sold)),
    h('td', {}, String(type.held)),
    h('td', {}, String(type.quantity)),
    h('td', {}, String(Math.max(0, type.quantity - type.sold - type.held))),
  );
}

function ticketTypes(event: EventDetail): HTMLElement {
  return h(
    'section',
    { 'aria-labelledby': 'ticket-types-title' },
    h('h2', { id: 'ticket-types-title' }, 'Ticket types'),
    event.ticketTypes.length === 0
      ? h('p', {}, 'This event sells seats without ticket types.')
      : scrollingTable('Ticket types', ['Ticket type', 'Price', 'Sold', 'Held', 'Quantity', 'Free'], event.ticketTypes.map(ticketTypeRow)),
  );
}

function eventPage(slug: string): Page {
  return {
    path: `events/${slug}`,
    title: 'Event',
    section: 'events',
    async render(context) {
      const { main } = context;
      const { event } = await request<EventDetailQuery, EventDetailQueryVariables>(EventDetailDocument, { slug });
      if (!event) throw new Error(`There is no event ${slug}`);
      context.setTitle(event.title);
      main.append(
        h(
          'nav',
          { class: 'actions', 'aria-label': 'Event' },
          h('a', { href: '#/events' }, 'All events'),
          h('a', { href: eventHref(event.slug, true) }, `Door check-in for ${event.title}`),
        ),
        facts(event),
        ticketTypes(event),
        await queueSection(context, event),
        await bookingsSection(context, event),
      );
    },
  };
}

export const eventRoute: Route = { pattern: /^events\/([^/]+)$/, page: ([slug]) => eventPage(slug) };
