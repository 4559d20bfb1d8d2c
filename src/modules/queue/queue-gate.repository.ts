/*
 * The on-sale queue's gate in front of bookings (D30), as SQL the booking statement composes
 * (src/modules/booking/booking.repository.ts): its CTEs, the columns of a refusal, and those columns
 * read back (queue-gate.ts works out the reason from them).
 */

/**
 * The gate as CTEs of the booking statement, on the event's queue columns as its `ev` read them: when
 * the queue is enabled and gates this booking (`:gated`, a client's), the seats are taken (`qok`, in
 * the seats' guard) only from onSaleAt, for at most maxSeatsPerAdmission, with the ADMITTED, unexpired
 * entry `:queueEntryId` of the same attendee email, locked (`qe`), which becomes USED with the booking
 * (`qu`, after the booking row `b`): two requests presenting one admission book once. An event without
 * a queue passes at once (`qok`: one row, no entry read).
 */
export const QUEUE_GATE = `qe as (
       select x.id, x.status, x.admitted_until, x.attendee_email, x.booking_id from queue_entries x join ev on x.event_id = ev.id
        where ev.queue_enabled and :gated::boolean and x.organization_id = :organizationId and x.id = :queueEntryId::text for no key update of x),
     qok as (
       select 1 from ev where not (ev.queue_enabled and :gated::boolean)
           or ((ev.queue_on_sale_at is null or ev.queue_on_sale_at <= :createdAt::timestamptz) and :quantity::int <= ev.queue_max_seats
               and exists (select 1 from qe where qe.status = 'ADMITTED' and qe.admitted_until > :createdAt::timestamptz
                                              and lower(qe.attendee_email) = lower(:attendeeEmail))))`;
export const QUEUE_USED = `qu as (
       update queue_entries y set status = 'USED', used_at = :createdAt::timestamptz, booking_id = b.id
         from qe join b on true where y.organization_id = :organizationId and y.id = qe.id)`;
/** The answer's columns a refusal by the gate is worked out from (queueGateFoundOf), with `qe` joined. */
export const QUEUE_FOUND = `ev.queue_enabled and :gated::boolean as "q.gated", exists (select 1 from qok) as "q.ok", ev.queue_on_sale_at as "q.on_sale_at",
          ev.queue_max_seats as "q.max_seats", qe.id as "qe.id", qe.status as "qe.status", qe.admitted_until as "qe.admitted_until",
          qe.attendee_email as "qe.attendee_email", qe.booking_id as "qe.booking_id"`;

/** What the booking statement found of the gate when it refused (its BookingChange.queue). */
export interface QueueGateFound {
  readonly onSaleAt: Date | null;
  readonly maxSeatsPerAdmission: number;
  /** The entry presented, of this event, as locked (null: none of this event). */
  readonly entry: { readonly id: string; readonly status: string; readonly admittedUntil: Date | null; readonly attendeeEmail: string; readonly bookingId: string | null } | null;
}

/** The gate's columns of a refused booking's answer (QUEUE_FOUND). */
export function queueGateFoundOf(answer: Record<string, unknown>): QueueGateFound {
  const date = (value: unknown) => (value == null ? null : new Date(value as string));
  return {
    onSaleAt: date(answer['q.on_sale_at']),
    maxSeatsPerAdmission: answer['q.max_seats'] as number,
    entry:
      answer['qe.id'] == null
        ? null
        : {
            id: answer['qe.id'] as string,
            status: answer['qe.status'] as string,
            admittedUntil: date(answer['qe.admitted_until']),
            attendeeEmail: answer['qe.attendee_email'] as string,
            bookingId: answer['qe.booking_id'] as string | null,
          },
  };
}
