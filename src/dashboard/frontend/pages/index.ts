import type { Page } from '../page';
import { keysPage } from './keys';
import { membersPage } from './members';
import { settingsPage } from './settings';
import { usagePage } from './usage';

/** The pages in navigation order; a new page (e.g. webhooks) is one import and one entry here. */
export const PAGES: readonly Page[] = [keysPage, membersPage, settingsPage, usagePage];
