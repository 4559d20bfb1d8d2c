import type { Page, Route } from '../page';
import { auditPage } from './audit';
import { doorRoute } from './door';
import { eventRoute } from './event';
import { eventsPage } from './events';
import { keysPage } from './keys';
import { membersPage } from './members';
import { seriesRoute } from './series';
import { seriesListPage } from './series-list';
import { settingsPage } from './settings';
import { usagePage } from './usage';
import { webhooksPage } from './webhooks';

/** The pages in navigation order; a new page is one import and one entry here. */
export const PAGES: readonly Page[] = [keysPage, eventsPage, seriesListPage, membersPage, webhooksPage, settingsPage, usagePage, auditPage];

/** Pages reached from another page, with an argument in their address; not in the navigation. */
const ROUTES: readonly Route[] = [eventRoute, doorRoute, seriesRoute];

/** The page at a path (the address after `#/`); an unknown path shows the first page. */
export function pageAt(path: string): Page {
  const page = PAGES.find((one) => one.path === path);
  if (page) return page;
  for (const route of ROUTES) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    try {
      return route.page(match.slice(1).map((part) => decodeURIComponent(part)));
    } catch {
      // A malformed escape (%E0%A4%A) names no page.
    }
  }
  return PAGES[0];
}
