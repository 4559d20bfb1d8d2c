import { request } from '../api';
import { CursorPages, cursorPager } from '../cursor-pages';
import { field, h, scrollingTable } from '../dom';
import { eventHref, formatInZone, seatsText } from '../event-format';
import { EventsDocument, type EventOrder, type EventStatus, type EventSummaryFieldsFragment, type EventsQuery, type EventsQueryVariables } from '../generated/operations';
import type { Page, PageContext } from '../page';

const PAGE_SIZE = 20;
const STATUSES: readonly EventStatus[] = ['DRAFT', 'PUBLISHED', 'CANCELLED', 'COMPLETED'];
const ORDERS: ReadonlyArray<readonly [EventOrder, string]> = [
  ['CREATED_AT_DESC', 'Newest first'],
  ['CREATED_AT_ASC', 'Oldest first'],
  ['START_DATE_ASC', 'Starting soonest'],
  ['START_DATE_DESC', 'Starting latest'],
];

/** The filters and the pages walked, kept while the dashboard is open (a reload or a visit to an event keeps them). */
interface Filters {
  search: string;
  status: EventStatus | '';
  /** yyyy-mm-dd in the browser's time zone, or '' */
  from: string;
  to: string;
  orderBy: EventOrder;
  /** A series' slug (D28): only its dates; '' for every event. */
  series: string;
}
const NO_FILTERS: Filters = { search: '', status: '', from: '', to: '', orderBy: 'CREATED_AT_DESC', series: '' };
let filters: Filters = NO_FILTERS;
const pages = new CursorPages();

/** The start of a local day (yyyy-mm-dd) as a Date; `offsetDays` days later. */
function localDay(day: string, offsetDays = 0): Date {
  const [year, month, date] = day.split('-').map(Number);
  return new Date(year, month - 1, date + offsetDays);
}

function variables(): EventsQueryVariables {
  return {
    limit: PAGE_SIZE,
    after: pages.after,
    search: filters.search || null,
    status: filters.status || null,
    // startsAfter is strict: a millisecond before the day's start takes in an event at midnight.
    startsAfter: filters.from ? new Date(localDay(filters.from).getTime() - 1).toISOString() : null,
    startsBefore: filters.to ? localDay(filters.to, 1).toISOString() : null,
    orderBy: filters.orderBy,
    series: filters.series || null,
  };
}

/** The list filtered to one series' dates, soonest first (the series page's link here). */
export function showSeriesInEvents(slug: string): void {
  filters = { ...NO_FILTERS, series: slug, orderBy: 'START_DATE_ASC' };
  pages.reset();
}

function filterForm(context: PageContext): HTMLFormElement {
  const option = (value: string, label: string, selected: string) => h('option', { value, selected: value === selected }, label);
  const form = h(
    'form',
    { class: 'card filters', 'aria-labelledby': 'events-filters-title', role: 'search' },
    h('h2', { id: 'events-filters-title' }, 'Find events'),
    h('label', { for: 'events-search' }, 'Title contains'),
    h('input', { id: 'events-search', name: 'search', type: 'search', value: filters.search, autocomplete: 'off' }),
    h('label', { for: 'events-status' }, 'Status'),
    h('select', { id: 'events-status', name: 'status' }, option('', 'Any status', filters.status), ...STATUSES.map((status) => option(status, status, filters.status))),
    h('label', { for: 'events-from' }, 'Starting from (day, your local time)'),
    h('input', { id: 'events-from', name: 'from', type: 'date', value: filters.from }),
    h('label', { for: 'events-to' }, 'Starting until (day, included)'),
    h('input', { id: 'events-to', name: 'to', type: 'date', value: filters.to }),
    h('label', { for: 'events-series' }, 'Series (its slug)'),
    h('input', { id: 'events-series', name: 'series', type: 'text', value: filters.series, autocomplete: 'off', spellcheck: 'false' }),
    h('label', { for: 'events-order' }, 'Order'),
    h('select', { id: 'events-order', name: 'orderBy' }, ...ORDERS.map(([value, label]) => option(value, label, filters.orderBy))),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Apply filters'), h('button', { type: 'reset', class: 'secondary' }, 'Clear filters')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    filters = {
      search: field(data, 'search').trim(),
      status: field(data, 'status') as EventStatus | '',
      from: field(data, 'from'),
      to: field(data, 'to'),
      orderBy: (field(data, 'orderBy') || 'CREATED_AT_DESC') as EventOrder,
      series: field(data, 'series').trim(),
    };
    // A cursor belongs to its filters and order: new ones start from the first page.
    pages.reset();
    context.reload();
  });
  form.addEventListener('reset', (event) => {
    event.preventDefault();
    filters = NO_FILTERS;
    pages.reset();
    context.reload();
  });
  return form;
}

function eventRow(event: EventSummaryFieldsFragment): HTMLTableRowElement {
  return h(
    'tr',
    {},
    h('td', {}, h('a', { href: eventHref(event.slug) }, event.title), h('div', { class: 'hint' }, h('code', {}, event.slug))),
    h('td', {}, event.status),
    h('td', { class: 'when' }, h('time', { datetime: event.startDate }, formatInZone(event.startDate, event.timezone)), h('div', { class: 'hint' }, event.timezone)),
    h('td', {}, event.venue ?? '—'),
    h('td', {}, seatsText(event)),
    h('td', {}, String(event.heldCount)),
    h('td', {}, String(event.checkedInCount)),
  );
}

export const eventsPage: Page = {
  path: 'events',
  title: 'Events',
  async render(context) {
    const { main } = context;
    main.append(filterForm(context));
    const { events } = await request<EventsQuery, EventsQueryVariables>(EventsDocument, variables());
    if (events.events.length === 0) {
      main.append(h('p', {}, pages.number === 1 ? 'No events match these filters.' : 'No more events.'));
      if (pages.number > 1) main.append(cursorPager('Event pages', pages, events, PAGE_SIZE, ['event', 'events'], () => context.reload()));
      return;
    }
    main.append(
      scrollingTable('Events', ['Event', 'Status', 'Starts', 'Venue', 'Seats', 'Held', 'Checked in'], events.events.map(eventRow)),
      cursorPager('Event pages', pages, events, PAGE_SIZE, ['event', 'events'], () => context.reload()),
    );
  },
};
