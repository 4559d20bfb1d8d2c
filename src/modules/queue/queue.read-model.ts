import DataLoader from 'dataloader';
import { AppError } from '../../foundation/errors/app-error';
import { QueueErrors } from '../../foundation/errors/queue-errors';
import { idErrors, slugErrors } from '../../foundation/validation/arguments';
import { assertValidInput } from '../../foundation/validation/validate-input';
import { readsOf, type RequestContext } from '../../platform/graphql/request-context';
import { findEntry, queueSettingsOfEvents, queueStatsOf } from './queue.read-repository';
import type { EventQueue, QueueEntry, QueueStats } from './queue.types';

/* The queue's reads (D30): arguments checked, then the organization-scoped read repository. */

/** Query.queueEntry and GET /v1/queue/{id}: a poll (QUEUE_ENTRY_NOT_FOUND for another organization's entry). */
export async function queueEntryById(context: RequestContext, id: string): Promise<QueueEntry> {
  assertValidInput(idErrors('id', id, 'qe'));
  const entry = await findEntry(context.em, context.auth.organization.id, id);
  if (!entry) throw QueueErrors.queueEntryNotFound(id);
  return entry;
}

/** Query.queueStats and GET /v1/events/{slug}/queue: the figures of the organization's event (EVENT_NOT_FOUND else). */
export async function queueStatsBySlug(context: RequestContext, eventSlug: string): Promise<QueueStats> {
  assertValidInput(slugErrors('eventSlug', eventSlug));
  const stats = await queueStatsOf(readsOf(context), context.auth.organization.id, { slug: eventSlug });
  if (!stats) throw AppError.eventNotFound(eventSlug);
  return stats;
}

/** EventQueue.stats: the figures of an event read before (its queue's settings). */
export async function queueStatsOfEvent(context: RequestContext, eventId: string): Promise<QueueStats> {
  const stats = await queueStatsOf(readsOf(context), context.auth.organization.id, { id: eventId });
  return stats ?? { waiting: 0, admitted: 0, used: 0, admittedLastMinute: 0 };
}

const settingsLoaders = new WeakMap<RequestContext, DataLoader<string, EventQueue | null>>();

/** Event.queue of an event read without it (a booking's event, a replayed answer): batched per response. */
export function queueSettingsOf(context: RequestContext, eventId: string): Promise<EventQueue | null> {
  let loader = settingsLoaders.get(context);
  if (!loader) {
    loader = new DataLoader(async (eventIds: readonly string[]) => {
      const byEvent = await queueSettingsOfEvents(readsOf(context), eventIds);
      return eventIds.map((id) => byEvent.get(id) ?? null);
    });
    settingsLoaders.set(context, loader);
  }
  return loader.load(eventId);
}
