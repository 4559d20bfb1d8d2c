import { request } from '../api';
import { CursorPages, cursorPager } from '../cursor-pages';
import { h, scrollingTable } from '../dom';
import { durationText, formatLocal, seriesHref } from '../event-format';
import { SeriesListDocument, type SeriesListQuery, type SeriesListQueryVariables, type SeriesSummaryFieldsFragment } from '../generated/operations';
import type { Page } from '../page';

const PAGE_SIZE = 20;
/** The pages walked, kept while the dashboard is open (a visit to a series and back keeps the page). */
const pages = new CursorPages();

/** A series' RFC 5545 lines (D28), one a line, as written. */
export function ruleLines(recurrence: readonly string[]): HTMLElement {
  return h('ul', { class: 'rule-lines' }, ...recurrence.map((line) => h('li', {}, h('code', {}, line))));
}

function seriesRow(series: SeriesSummaryFieldsFragment): HTMLTableRowElement {
  return h(
    'tr',
    {},
    h('td', {}, h('a', { href: seriesHref(series.slug) }, series.title), h('div', { class: 'hint' }, h('code', {}, series.slug))),
    h('td', {}, ruleLines(series.recurrence)),
    h('td', { class: 'when' }, formatLocal(series.firstStart), h('div', { class: 'hint' }, series.timezone)),
    h('td', { class: 'when' }, durationText(series.durationMinutes)),
    h('td', {}, String(series.occurrenceCount)),
    h('td', {}, String(series.version)),
  );
}

/** The organization's series (D28), newest first, a cursor page at a time (D25); read only. */
export const seriesListPage: Page = {
  path: 'series',
  title: 'Series',
  async render(context) {
    const { main } = context;
    const { seriesList } = await request<SeriesListQuery, SeriesListQueryVariables>(SeriesListDocument, { limit: PAGE_SIZE, after: pages.after });
    main.append(h('p', { class: 'hint' }, 'Recurring events: each date of a series is an event of its own. Series are made and changed through the API or the admin CLI.'));
    const pager = () => cursorPager('Series pages', pages, seriesList, PAGE_SIZE, ['series', 'series'], () => context.reload());
    if (seriesList.series.length === 0) {
      main.append(h('p', {}, pages.number === 1 ? 'No series yet.' : 'No more series.'));
      if (pages.number > 1) main.append(pager());
      return;
    }
    main.append(scrollingTable('Series', ['Series', 'Rule', 'First start (local)', 'Duration', 'Dates', 'Version'], seriesList.series.map(seriesRow)), pager());
  },
};
