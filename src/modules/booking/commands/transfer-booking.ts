import { AppError } from '../../../foundation/errors/app-error';
import { idErrors } from '../../../foundation/validation/arguments';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { recordAudit } from '../../../platform/audit/audit-log';
import { noTicketCodes } from '../../../platform/crypto/ticket-codes';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import type { BookingEntity } from '../booking.entity';
import type { TransferBookingInput } from '../booking.inputs';
import { replaceTicketCode } from '../ticket-code.repository';
import { changeAttendee } from '../transfer.repository';
import { assertTransferable, transferLockedAt } from '../transfer.policy';

/**
 * Mutation.transferBooking (D29): a CONFIRMED booking, not checked in, before its event's lock (the
 * start less the organization's transferLockMinutes) goes to another attendee. One transaction, under
 * the booking's row lock: the attendee changed with its `booking.transferred` message (never a code in
 * it), a new code issued and the old one superseded (a scan of it answers TICKET_TRANSFERRED), the
 * audit entry `booking.transferred` with both attendees. Seats and counts are not touched. The answer
 * carries the new code (to whoever may read it).
 */
export function transferBooking(scope: UnitOfWorkScope, organizationId: string, id: string, input: TransferBookingInput): Promise<BookingEntity> {
  assertValidInput(idErrors('id', id, 'bk'), input);
  const codes = scope.ticketCodes ?? noTicketCodes();
  const attendee = { attendeeName: input.attendeeName.trim(), attendeeEmail: input.attendeeEmail };
  return inUnitOfWork(scope, async (tx, unit) => {
    const now = new Date();
    const change = await changeAttendee(tx, organizationId, id, attendee, now);
    if (!change.booking) throw AppError.bookingNotFound(id);
    if (!change.changed) {
      assertTransferable(change.booking, transferLockedAt(change.startDate ?? now, change.transferLockMinutes), now);
      throw new Error(`booking ${id} was not transferred for no reason the policy knows`);
    }
    const transferred = await replaceTicketCode(tx, organizationId, id, codes.issue(), 'TRANSFER', now);
    if (!transferred) throw new Error(`booking ${id} was transferred and then not found`);
    await recordAudit(tx, unit, {
      organizationId,
      action: 'booking.transferred',
      targetId: id,
      summary: { from: { ...change.previous }, to: attendee, reason: input.reason ?? null },
    });
    return transferred;
  });
}
