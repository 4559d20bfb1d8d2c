import { AppError } from '../../src/foundation/errors/app-error';
import { BookingStatus } from '../../src/modules/booking/booking.entity';
import { assertAvailable, assertCancellable, holdMinutesErrors, needsConfirming } from '../../src/modules/booking/booking.policy';
import { TicketTypeInput } from '../../src/modules/ticket-type/ticket-type.inputs';
import { validateInput } from '../../src/foundation/validation/validate-input';
import { assertRemovable, MAX_TICKET_TYPES, quantityErrors, ticketTypeCountErrors } from '../../src/modules/ticket-type/ticket-type.policy';

// Pure rules (docs/decisions/ D6, D7): no database, no HTTP.
function thrown(fn: () => void): AppError | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  return undefined;
}

describe('availability (D7)', () => {
  const type = { id: 'tt_1', quantity: 10, sold: 8 };

  test('within every limit: no error', () => {
    expect(thrown(() => assertAvailable({ capacity: 100, registrationCount: 10 }, type, 2))).toBeUndefined();
    expect(thrown(() => assertAvailable({ capacity: null, registrationCount: 10 }, null, 1000))).toBeUndefined();
  });

  test('the ticket type is the tighter limit', () => {
    expect(thrown(() => assertAvailable({ capacity: 100, registrationCount: 10 }, type, 3))).toMatchObject({
      code: 'SOLD_OUT',
      message: 'Only 2 left for this ticket type; 3 requested',
      details: { limitedBy: 'ticketType', available: 2, requested: 3, ticketTypeId: 'tt_1' },
    });
  });

  test('the capacity is the tighter limit, and none left says sold out', () => {
    expect(thrown(() => assertAvailable({ capacity: 10, registrationCount: 10 }, type, 1))).toMatchObject({
      code: 'SOLD_OUT',
      message: "Sold out: the event's capacity has no seats left",
      details: { limitedBy: 'capacity', available: 0, requested: 1 },
    });
  });
});

const now = new Date('2030-01-01T12:00:00Z');
const later = new Date('2030-01-01T12:15:00Z');
const earlier = new Date('2030-01-01T11:45:00Z');
const booking = (status: BookingStatus, fields: { cancelledAt?: Date; expiresAt?: Date } = {}) => ({
  id: 'bk_1',
  status,
  cancelledAt: fields.cancelledAt ?? null,
  expiresAt: fields.expiresAt ?? null,
});

describe('cancellation (D7, D20)', () => {
  test('a confirmed booking, or a hold before its expiresAt, can be cancelled once', () => {
    expect(thrown(() => assertCancellable(booking(BookingStatus.CONFIRMED), now))).toBeUndefined();
    expect(thrown(() => assertCancellable(booking(BookingStatus.HELD, { expiresAt: later }), now))).toBeUndefined();
    const cancelledAt = new Date('2030-01-01T00:00:00Z');
    expect(thrown(() => assertCancellable(booking(BookingStatus.CANCELLED, { cancelledAt }), now))).toMatchObject({
      code: 'BOOKING_ALREADY_CANCELLED',
      details: { id: 'bk_1', cancelledAt: '2030-01-01T00:00:00.000Z' },
    });
  });

  test('a hold past its expiresAt is HOLD_EXPIRED, stored EXPIRED or not yet', () => {
    for (const status of [BookingStatus.HELD, BookingStatus.EXPIRED]) {
      expect(thrown(() => assertCancellable(booking(status, { expiresAt: earlier }), now))).toMatchObject({
        code: 'HOLD_EXPIRED',
        details: { id: 'bk_1', expiresAt: earlier.toISOString() },
      });
    }
    // The very moment it ends counts as past.
    expect(thrown(() => assertCancellable(booking(BookingStatus.HELD, { expiresAt: now }), now))).toMatchObject({ code: 'HOLD_EXPIRED' });
  });
});

describe('confirmation (D20)', () => {
  test('a hold before its expiresAt is confirmed; a confirmed booking is answered unchanged', () => {
    expect(needsConfirming(booking(BookingStatus.HELD, { expiresAt: later }), now)).toBe(true);
    expect(needsConfirming(booking(BookingStatus.CONFIRMED), now)).toBe(false);
  });

  test('past its expiresAt: HOLD_EXPIRED; cancelled: BOOKING_NOT_HELD', () => {
    expect(thrown(() => needsConfirming(booking(BookingStatus.HELD, { expiresAt: earlier }), now))).toMatchObject({ code: 'HOLD_EXPIRED' });
    expect(thrown(() => needsConfirming(booking(BookingStatus.EXPIRED, { expiresAt: earlier }), now))).toMatchObject({ code: 'HOLD_EXPIRED' });
    expect(thrown(() => needsConfirming(booking(BookingStatus.CANCELLED, { cancelledAt: earlier }), now))).toMatchObject({
      code: 'BOOKING_NOT_HELD',
      details: { id: 'bk_1', status: 'CANCELLED' },
    });
  });

  test('a hold may last at most the organization holdMinutes', () => {
    expect(holdMinutesErrors(15, 15)).toEqual([]);
    expect(holdMinutesErrors(undefined, 15)).toEqual([]);
    expect(holdMinutesErrors(16, 15)).toEqual([{ field: 'holdMinutes', message: "holdMinutes must be at most 15 (the organization's holdMinutes)" }]);
  });
});

describe('ticket types (D6)', () => {
  test('quantity never below sold', () => {
    expect(quantityErrors(7, 8).map((e) => e.field)).toEqual(['quantity']);
    expect(quantityErrors(8, 8)).toEqual([]);
    expect(quantityErrors(undefined, 8)).toEqual([]);
  });

  test('a type with sales cannot be removed', () => {
    expect(thrown(() => assertRemovable({ id: 'tt_1', sold: 1 }))).toMatchObject({ code: 'TICKET_TYPE_HAS_SALES', details: { id: 'tt_1', sold: 1 } });
    expect(thrown(() => assertRemovable({ id: 'tt_1', sold: 0 }))).toBeUndefined();
  });

  test(`at most ${MAX_TICKET_TYPES} per event`, () => {
    expect(ticketTypeCountErrors(MAX_TICKET_TYPES - 1)).toEqual([]);
    expect(ticketTypeCountErrors(MAX_TICKET_TYPES).map((e) => e.field)).toEqual(['eventSlug']);
  });
});

describe('ticket type input (D6): prices in any JSON notation', () => {
  const priceErrors = (price: number) =>
    validateInput(Object.assign(new TicketTypeInput(), { name: 'A', price, currency: 'EUR', quantity: 1 })).map((error) => error.field);

  test.each([0, 19.99, 49, 1e2, 0.1 + 0.2, 9_999_999.99])('%p is accepted', (price) => {
    expect(priceErrors(price)).toEqual([]);
  });

  test.each([1e-7, 1.5e-7, 12.345, -1, 1e21])('%p is 400 on price, never a crash', (price) => {
    expect(priceErrors(price)).toContain('price');
  });
});
