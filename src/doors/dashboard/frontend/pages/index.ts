import type { Page } from '../page';
import { auditPage } from './audit';
import { keysPage } from './keys';
import { membersPage } from './members';
import { settingsPage } from './settings';
import { usagePage } from './usage';
import { webhooksPage } from './webhooks';

/** The pages in navigation order; a new page is one import and one entry here. */
export const PAGES: readonly Page[] = [keysPage, membersPage, webhooksPage, settingsPage, usagePage, auditPage];
