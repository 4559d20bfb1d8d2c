import { request } from '../api';
import { CursorPages, cursorPager } from '../cursor-pages';
import { formatDate, h, scrollingTable } from '../dom';
import { durationText, eventHref, formatInZone, formatLocal, seatsText } from '../event-format';
import { SeriesDetailDocument, type EventSummaryFieldsFragment, type SeriesDetailQuery, type SeriesDetailQueryVariables } from '../generated/operations';
import type { Page, Route } from '../page';
import { showSeriesInEvents } from './events';
import { ruleLines } from './series-list';

type SeriesDetail = NonNullable<SeriesDetailQuery['series']>;

const PAGE_SIZE = 20;
/** The series whose dates are shown and the pages walked (kept across re-renders and a visit to a date). */
let shown: { slug: string; pages: CursorPages } = { slug: '', pages: new CursorPages() };

/** The series' rule and template (D28): what every date is made from. */
function facts(series: SeriesDetail): HTMLElement {
  const pairs: Array<[string, string | Node]> = [
    ['Rule', ruleLines(series.recurrence)],
    ['Time zone', series.timezone],
    ['First start (local)', formatLocal(series.firstStart)],
    ['Duration', durationText(series.durationMinutes)],
    ['Dates', String(series.occurrenceCount)],
    ['Version', String(series.version)],
    ['Venue', [series.venue, series.venueAddress].filter(Boolean).join(', ') || '—'],
    ['Capacity of each date', series.capacity === null ? 'no limit' : String(series.capacity)],
    [
      'Ticket types of new dates',
      series.ticketTypes.length === 0
        ? 'none'
        : series.ticketTypes
            .map((type) => `${type.name} (${new Intl.NumberFormat(undefined, { style: 'currency', currency: type.currency }).format(type.price)}, ${type.quantity})`)
            .join(', '),
    ],
    ['Changed', formatDate(series.updatedAt)],
  ];
  return h(
    'section',
    { 'aria-labelledby': 'series-facts-title' },
    h('h2', { id: 'series-facts-title', class: 'visually-hidden' }, 'Series details'),
    h('dl', { class: 'facts' }, ...pairs.flatMap(([name, value]) => [h('dt', {}, name), h('dd', {}, value)])),
  );
}

/** One date: when in the series' time zone (its wall-clock time, D28), a link to its event page, and its counts. */
function dateRow(series: SeriesDetail, event: EventSummaryFieldsFragment): HTMLTableRowElement {
  return h(
    'tr',
    {},
    h('td', { class: 'when' }, h('a', { href: eventHref(event.slug) }, h('time', { datetime: event.startDate }, formatInZone(event.startDate, series.timezone))), h('div', { class: 'hint' }, h('code', {}, event.slug))),
    h('td', {}, event.title),
    h('td', {}, event.status),
    h('td', {}, seatsText(event)),
    h('td', {}, String(event.heldCount)),
    h('td', {}, String(event.checkedInCount)),
  );
}

function seriesPage(slug: string): Page {
  return {
    path: `series/${slug}`,
    title: 'Series',
    section: 'series',
    async render(context) {
      const { main } = context;
      if (shown.slug !== slug) shown = { slug, pages: new CursorPages() };
      const variables: SeriesDetailQueryVariables = { slug, limit: PAGE_SIZE, after: shown.pages.after };
      const { series } = await request<SeriesDetailQuery, SeriesDetailQueryVariables>(SeriesDetailDocument, variables);
      if (!series) throw new Error(`There is no series ${slug}`);
      context.setTitle(series.title);
      const occurrences = series.occurrences;
      const dates = h(
        'section',
        { 'aria-labelledby': 'series-dates-title' },
        h('h2', { id: 'series-dates-title' }, 'Dates'),
        h('p', { class: 'hint' }, `In order of their start; times in the series’ time zone (${series.timezone}).`),
      );
      if (occurrences.events.length === 0) dates.append(h('p', {}, shown.pages.number === 1 ? 'This series has no dates.' : 'No more dates.'));
      else dates.append(scrollingTable('Dates', ['Date', 'Title', 'Status', 'Seats', 'Held', 'Checked in'], occurrences.events.map((event) => dateRow(series, event))));
      if (occurrences.events.length > 0 || shown.pages.number > 1) dates.append(cursorPager('Date pages', shown.pages, occurrences, PAGE_SIZE, ['date', 'dates'], () => context.reload()));
      main.append(
        h(
          'nav',
          { class: 'actions', 'aria-label': 'Series' },
          h('a', { href: '#/series' }, 'All series'),
          h('a', { href: '#/events', onclick: () => showSeriesInEvents(series.slug) }, `Dates of ${series.title} in the events list`),
        ),
        facts(series),
        dates,
      );
    },
  };
}

export const seriesRoute: Route = { pattern: /^series\/([^/]+)$/, page: ([slug]) => seriesPage(slug) };
