import { AppError } from '../../src/foundation/errors/app-error';
import { WaitlistStatus } from '../../src/modules/waitlist/waitlist-entry.entity';
import { assertSoldOutFor, chooseOffers, leaveOf } from '../../src/modules/waitlist/waitlist.policy';

// Pure rules of the waiting list (docs/decisions/ D21): no database, no HTTP.
const entry = (id: string, quantity: number, ticketTypeId: string | null = null) => ({ id, quantity, ticketTypeId });
const ids = (entries: Array<{ id: string }>) => entries.map((chosen) => chosen.id);
const refusal = (run: () => void): AppError => {
  try {
    run();
  } catch (error) {
    return error as AppError;
  }
  throw new Error('not refused');
};

describe('chooseOffers', () => {
  test('join order; an entry too large keeps its place and smaller later ones pass it', () => {
    const entries = [entry('a', 3), entry('b', 1), entry('c', 2), entry('d', 1)];
    expect(ids(chooseOffers(entries, { event: 2, ticketTypes: new Map() }))).toEqual(['b', 'd']);
    expect(ids(chooseOffers(entries, { event: 3, ticketTypes: new Map() }))).toEqual(['a']);
    expect(ids(chooseOffers(entries, { event: 0, ticketTypes: new Map() }))).toEqual([]);
    expect(ids(chooseOffers(entries, { event: null, ticketTypes: new Map() }))).toEqual(['a', 'b', 'c', 'd']);
  });

  test("an entry of a ticket type needs the type's room as well as the event's; a type without room (or gone) offers nothing", () => {
    const entries = [entry('a', 2, 'tt_1'), entry('b', 1, 'tt_1'), entry('c', 1, 'tt_2'), entry('d', 2), entry('e', 1, 'tt_gone')];
    expect(ids(chooseOffers(entries, { event: 10, ticketTypes: new Map([['tt_1', 2], ['tt_2', 0]]) }))).toEqual(['a', 'd']);
    expect(ids(chooseOffers(entries, { event: 2, ticketTypes: new Map([['tt_1', 5], ['tt_2', 5]]) }))).toEqual(['a']);
    expect(ids(chooseOffers(entries, { event: null, ticketTypes: new Map([['tt_1', 1], ['tt_2', 1]]) }))).toEqual(['b', 'c', 'd']);
  });
});

describe('assertSoldOutFor', () => {
  test('joining is allowed only when the tightest limit is short of the seats asked for', () => {
    expect(() => assertSoldOutFor({ event: 1, ticketType: null }, 2)).not.toThrow();
    expect(() => assertSoldOutFor({ event: 10, ticketType: { id: 'tt_1', free: 0 } }, 1)).not.toThrow();
    const free = refusal(() => assertSoldOutFor({ event: 3, ticketType: { id: 'tt_1', free: 5 } }, 3));
    expect([free.code, free.details]).toEqual(['SEATS_AVAILABLE', { available: 3, requested: 3, limitedBy: 'capacity' }]);
    const typed = refusal(() => assertSoldOutFor({ event: null, ticketType: { id: 'tt_1', free: 4 } }, 2));
    expect(typed.details).toEqual({ available: 4, requested: 2, limitedBy: 'ticketType', ticketTypeId: 'tt_1' });
    const unlimited = refusal(() => assertSoldOutFor({ event: null, ticketType: null }, 1000));
    expect(unlimited.details).toEqual({ available: null, requested: 1000, limitedBy: null });
  });
});

describe('leaveOf', () => {
  test('WAITING leaves, OFFERED gives its hold back, LEFT is answered unchanged, CONVERTED and EXPIRED are refused', () => {
    expect(leaveOf({ id: 'wl_1', status: WaitlistStatus.WAITING })).toBe('leave');
    expect(leaveOf({ id: 'wl_1', status: WaitlistStatus.OFFERED })).toBe('leave-offer');
    expect(leaveOf({ id: 'wl_1', status: WaitlistStatus.LEFT })).toBe('unchanged');
    for (const status of [WaitlistStatus.CONVERTED, WaitlistStatus.EXPIRED]) {
      const refused = refusal(() => leaveOf({ id: 'wl_1', status }));
      expect([refused.code, refused.details]).toEqual(['WAITLIST_ENTRY_NOT_WAITING', { id: 'wl_1', status }]);
    }
  });
});
