import { AppError } from '../../src/foundation/errors/app-error';
import { BookingStatus } from '../../src/modules/booking/booking.entity';
import { exchangeRefusal, type ExchangeFound, type ExchangeRequest } from '../../src/modules/booking/exchange.policy';
import { EventStatus } from '../../src/modules/event/event-status';

// The refusals of an exchange (D29), worked out from what its statement found: pure, no database.
const NOW = new Date('2030-01-01T12:00:00Z');
const HOUR = 3_600_000;

const found = (overrides: Partial<ExchangeFound> = {}): ExchangeFound => ({
  booking: { eventId: 'evt_from', status: BookingStatus.CONFIRMED, expiresAt: null, checkedInAt: null },
  start: new Date(NOW.getTime() + 24 * HOUR),
  transferLockMinutes: 0,
  target: { id: 'evt_to', slug: 'to', status: EventStatus.PUBLISHED, capacity: 10, registrationCount: 0, slots: 0 },
  ticketTypeRequired: false,
  ticketType: null,
  room: null,
  ...overrides,
});
const request = (overrides: Partial<ExchangeRequest> = {}): ExchangeRequest => ({ id: 'bk_one', eventSlug: 'to', ticketTypeId: null, quantity: 2, ...overrides });

function refusal(at: ExchangeFound, asked: ExchangeRequest = request()): { code: string; details: unknown } | string {
  try {
    return exchangeRefusal(at, asked, NOW);
  } catch (error) {
    if (error instanceof AppError) return { code: error.code, details: error.details };
    throw error;
  }
}

test('the booking first, as a transfer: BOOKING_NOT_CONFIRMED, BOOKING_CHECKED_IN, TRANSFER_LOCKED, before anything of the target', () => {
  const nothing = { target: null };
  expect(refusal(found({ ...nothing, booking: { eventId: 'evt_from', status: BookingStatus.CANCELLED, expiresAt: null, checkedInAt: null } }))).toEqual({
    code: 'BOOKING_NOT_CONFIRMED',
    details: { status: 'CANCELLED' },
  });
  const checkedInAt = new Date(NOW.getTime() - HOUR);
  expect(refusal(found({ ...nothing, booking: { eventId: 'evt_from', status: BookingStatus.CONFIRMED, expiresAt: null, checkedInAt } }))).toEqual({
    code: 'BOOKING_CHECKED_IN',
    details: { checkedInAt: checkedInAt.toISOString() },
  });
  // Locked from the source's start less transferLockMinutes on.
  expect(refusal(found({ ...nothing, start: new Date(NOW.getTime() + HOUR), transferLockMinutes: 60 }))).toEqual({
    code: 'TRANSFER_LOCKED',
    details: { lockedAt: NOW.toISOString() },
  });
  expect(refusal(found(nothing))).toMatchObject({ code: 'EVENT_NOT_FOUND', details: { slug: 'to' } });
});

test('then the target: its own event, a missing ticket type, not bookable, an unknown ticket type, full; in that order', () => {
  const closed = { id: 'evt_to', slug: 'to', status: EventStatus.DRAFT, capacity: 0, registrationCount: 0, slots: 0 };
  expect(refusal(found({ target: { ...closed, id: 'evt_from' } }))).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ field: 'eventSlug' }] } });
  expect(refusal(found({ target: closed, ticketTypeRequired: true }))).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ field: 'ticketTypeId' }] } });
  expect(refusal(found({ target: closed }))).toEqual({ code: 'EVENT_NOT_PUBLISHED', details: { slug: 'to', status: 'DRAFT' } });
  const open = { ...closed, status: EventStatus.PUBLISHED };
  expect(refusal(found({ target: open }), request({ ticketTypeId: 'tt_other' }))).toEqual({ code: 'TICKET_TYPE_NOT_FOUND', details: { id: 'tt_other' } });
  expect(refusal(found({ target: { ...open, capacity: 5, registrationCount: 4 } }))).toEqual({
    code: 'SOLD_OUT',
    details: { limitedBy: 'capacity', available: 1, requested: 2 },
  });
  expect(refusal(found({ target: { ...open, capacity: null }, ticketType: { id: 'tt_to', quantity: 3, sold: 3 } }), request({ ticketTypeId: 'tt_to' }))).toEqual({
    code: 'SOLD_OUT',
    details: { limitedBy: 'ticketType', available: 0, requested: 2, ticketTypeId: 'tt_to' },
  });
});

test('what the next attempt does when no rule refused: a booking moved meanwhile → again; a slotted target with room only spread over its slots → gather', () => {
  expect(refusal(found({ booking: null }))).toBe('again');
  const slotted = { id: 'evt_to', slug: 'to', status: EventStatus.PUBLISHED, capacity: 500, registrationCount: 0, slots: 16 };
  expect(refusal(found({ target: slotted, room: { event: 3, ticketType: null } }))).toBe('gather');
  expect(refusal(found({ target: slotted, room: { event: 1, ticketType: null } }))).toEqual({ code: 'SOLD_OUT', details: { limitedBy: 'capacity', available: 1, requested: 2 } });
  expect(refusal(found({ target: { ...slotted, capacity: 10, slots: 0 } }))).toBe('again');
});
