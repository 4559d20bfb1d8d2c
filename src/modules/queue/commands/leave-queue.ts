import { QueueErrors } from '../../../foundation/errors/queue-errors';
import { idErrors } from '../../../foundation/validation/arguments';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { findEntry } from '../queue.read-repository';
import { leaveQueueEntry } from '../queue.repository';
import type { QueueEntry } from '../queue.types';

/**
 * Mutation.leaveQueue and DELETE /v1/queue/{id} (D30): the entry becomes LEFT (one statement,
 * queue.repository.ts leaveQueueEntry): a WAITING one's place goes (everyone behind moves up), an
 * ADMITTED one's admission is given back. LEFT again, or USED (its booking was made): answered as it
 * is. Joining again after leaving makes a new entry at the back. Another organization's entry:
 * QUEUE_ENTRY_NOT_FOUND, like a missing one.
 */
export async function leaveQueue(scope: UnitOfWorkScope, organizationId: string, id: string): Promise<QueueEntry> {
  assertValidInput(idErrors('id', id, 'qe'));
  return inUnitOfWork(
    scope,
    async (tx) => {
      if (!(await leaveQueueEntry(tx, organizationId, id))) throw QueueErrors.queueEntryNotFound(id);
      return (await findEntry(tx, organizationId, id))!;
    },
    { singleStatement: true },
  );
}
