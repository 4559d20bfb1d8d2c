import type { EntityManager } from '@mikro-orm/postgresql';
import { paginationErrors, slugErrors } from '../../foundation/validation/arguments';
import { assertValidInput } from '../../foundation/validation/validate-input';
import { idBySlug } from '../event/event.repository';
import type { WaitlistStatus } from './waitlist-entry.entity';
import { entryPage } from './waitlist.repository';
import type { WaitlistPage } from './waitlist.types';

/** Query.waitlist (D21): one event's entries in join order, with positions (EVENT_NOT_FOUND for another organization's event). */
export async function waitlistPage(
  em: EntityManager,
  organizationId: string,
  eventSlug: string,
  query: { page: number; limit: number; status?: WaitlistStatus | null },
): Promise<WaitlistPage> {
  assertValidInput(slugErrors('eventSlug', eventSlug), paginationErrors(query.page, query.limit));
  const eventId = await idBySlug(em, organizationId, eventSlug);
  const { entries, total } = await entryPage(em, eventId, { page: query.page, limit: query.limit, status: query.status ?? null }, new Date());
  return { entries, total, page: query.page, limit: query.limit };
}
