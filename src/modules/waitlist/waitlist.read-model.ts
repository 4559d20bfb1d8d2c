import { paginationErrors, slugErrors } from '../../foundation/validation/arguments';
import { assertValidInput } from '../../foundation/validation/validate-input';
import { cursorErrors, cursorsOf, openCursor } from '../../platform/graphql/list-cursors';
import type { RequestContext } from '../../platform/graphql/request-context';
import { idBySlug } from '../event/event.read-repository';
import type { WaitlistStatus } from './waitlist-entry.entity';
import { entryPage } from './waitlist.read-repository';
import type { WaitlistPage } from './waitlist.types';

/** What a waiting-list cursor is bound to besides the organization: the event and the status filter. */
const waitlistListOf = (eventId: string, status: WaitlistStatus | null): string => JSON.stringify(['waitlist', eventId, status]);

/**
 * Query.waitlist (D21): one event's entries in join order, with positions (EVENT_NOT_FOUND for another
 * organization's event); a page by number or after a cursor (D25).
 */
export async function waitlistPage(
  context: RequestContext,
  eventSlug: string,
  query: { page: number; limit: number; status?: WaitlistStatus | null; after?: string | null },
): Promise<WaitlistPage> {
  assertValidInput(slugErrors('eventSlug', eventSlug), paginationErrors(query.page, query.limit), cursorErrors(query.page, query.after));
  const { em } = context;
  const organizationId = context.auth.organization.id;
  const cursors = cursorsOf(context);
  const status = query.status ?? null;
  const eventId = await idBySlug(em, organizationId, eventSlug);
  const list = waitlistListOf(eventId, status);
  const after = query.after != null ? openCursor(cursors, organizationId, list, query.after) : null;
  const { entries, total, next } = await entryPage(em, eventId, { page: query.page, limit: query.limit, status, after }, new Date());
  return { entries, total, page: query.page, limit: query.limit, nextCursor: next ? cursors.seal(organizationId, list, next) : null };
}
