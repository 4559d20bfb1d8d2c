import { AppError } from '../../../foundation/errors/app-error';
import { QueueErrors } from '../../../foundation/errors/queue-errors';
import { newId } from '../../../foundation/ids';
import { slugErrors } from '../../../foundation/validation/arguments';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { EventStatus, effectiveStatus } from '../../event/event-status';
import { entryOf, findEntry } from '../queue.read-repository';
import { joinQueueEntry, type JoinAnswer } from '../queue.repository';
import type { JoinQueueInput, QueueEntry } from '../queue.types';

/**
 * Mutation.joinQueue and POST /v1/events/{slug}/queue (D30): the attendee's entry of the event's queue.
 * One per attendee email and event: joining again answers the entry there is (`created` false: REST
 * 200), a LEFT one aside (a new entry at the back). A new entry (`created` true: 201) while the queue
 * is enabled and open and not sold out; one statement (queue.repository.ts joinQueueEntry), then its
 * position read. Refusals, in order: EVENT_NOT_FOUND, QUEUE_NOT_ENABLED, QUEUE_NOT_OPEN,
 * EVENT_NOT_PUBLISHED (cancelled or over), SOLD_OUT.
 */
export async function joinQueue(scope: UnitOfWorkScope, organizationId: string, eventSlug: string, input: JoinQueueInput): Promise<QueueEntry> {
  assertValidInput(slugErrors('eventSlug', eventSlug), input);
  const join = { eventSlug, id: newId('qe'), attendeeEmail: input.attendeeEmail, attendeeName: input.attendeeName?.trim() ?? null };
  return inUnitOfWork(
    scope,
    async (tx) => {
      const answer = await joinQueueEntry(tx, organizationId, join);
      if (answer.made !== null) return entryOf(answer.made, true);
      if (answer.existingId !== null) return (await findEntry(tx, organizationId, answer.existingId))!;
      throw refusal(eventSlug, answer);
    },
    { singleStatement: true },
  );
}

/** Why a join made no entry, from what its statement found. */
function refusal(eventSlug: string, answer: JoinAnswer): AppError {
  if (answer.eventId === null) return AppError.eventNotFound(eventSlug);
  if (!answer.enabled) return QueueErrors.queueNotEnabled(eventSlug);
  if (answer.opensAt !== null && answer.opensAt.getTime() > Date.now()) return QueueErrors.queueNotOpen(answer.opensAt);
  const status = effectiveStatus(answer.status as EventStatus, answer.endDate!);
  if (status !== EventStatus.PUBLISHED && status !== EventStatus.DRAFT) return AppError.eventNotPublished(eventSlug, status);
  // Sold out as the statement read the stock, or as the queue's row said under its lock (marked meanwhile).
  return QueueErrors.queueSoldOut(null);
}
