import { AppError } from '../../src/foundation/errors/app-error';
import {
  assertBookable,
  assertDeletable,
  assertMutableFields,
  capacityErrors,
  isAllowedTransition,
  scheduleErrors,
  statusChangeErrors,
} from '../../src/modules/event/event.policy';
import { EventStatus } from '../../src/modules/event/event-status';

// Pure rules (docs/decisions/ D3, D4, D7): no database, no HTTP.
const { DRAFT, PUBLISHED, CANCELLED, COMPLETED } = EventStatus;
const at = (iso: string) => new Date(iso);
const NOW = at('2030-01-01T00:00:00Z');

function thrown(fn: () => void): AppError | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  return undefined;
}

describe('status transitions (D3)', () => {
  test.each([
    [DRAFT, PUBLISHED, true],
    [DRAFT, CANCELLED, true],
    [DRAFT, DRAFT, true],
    [PUBLISHED, CANCELLED, true],
    [PUBLISHED, DRAFT, true],
    [PUBLISHED, PUBLISHED, true],
    [CANCELLED, DRAFT, true],
    [CANCELLED, PUBLISHED, false],
    [COMPLETED, PUBLISHED, false],
    [COMPLETED, CANCELLED, true],
    [COMPLETED, DRAFT, true],
  ])('%s → %s allowed: %s', (from, to, allowed) => {
    expect(isAllowedTransition(from, to)).toBe(allowed);
    expect(statusChangeErrors(from, to).map((error) => error.field)).toEqual(allowed ? [] : ['status']);
  });

  test('COMPLETED can never be set', () => {
    expect(statusChangeErrors(PUBLISHED, COMPLETED)).toEqual([{ field: 'status', message: expect.stringContaining('DRAFT, PUBLISHED, CANCELLED') }]);
  });
});

describe('immutable fields once published (D3)', () => {
  const stored = { slug: 'launch', startDate: at('2031-01-01T09:00:00Z') };

  test.each([PUBLISHED, COMPLETED])('%s: slug and startDate changes are 409, naming each', (status) => {
    const error = thrown(() => assertMutableFields({ ...stored, status }, { slug: 'other', startDate: at('2031-02-01T09:00:00Z') }));
    expect(error).toMatchObject({ code: 'EVENT_ALREADY_PUBLISHED', details: { immutableFields: ['slug', 'startDate'] } });
  });

  test('sending the stored values is no change', () => {
    expect(thrown(() => assertMutableFields({ ...stored, status: PUBLISHED }, { ...stored }))).toBeUndefined();
  });

  test.each([DRAFT, CANCELLED])('%s accepts every change', (status) => {
    expect(thrown(() => assertMutableFields({ ...stored, status }, { slug: 'other', startDate: at('2032-01-01T00:00:00Z') }))).toBeUndefined();
  });
});

describe('schedule (D4), the same rule for create and update', () => {
  const stored = { startDate: at('2031-01-01T09:00:00Z'), endDate: at('2031-01-01T17:00:00Z') };

  test('create: start in the future, end after start', () => {
    expect(scheduleErrors({ startDate: at('2031-01-01T09:00:00Z'), endDate: at('2031-01-01T10:00:00Z') }, undefined, NOW)).toEqual([]);
    expect(scheduleErrors({ startDate: at('2020-01-02T00:00:00Z'), endDate: at('2020-01-01T00:00:00Z') }, undefined, NOW).map((e) => e.field)).toEqual([
      'startDate',
      'endDate',
    ]);
    expect(scheduleErrors({ startDate: NOW, endDate: at('2031-01-01T00:00:00Z') }, undefined, NOW).map((e) => e.field)).toEqual(['startDate']);
    expect(scheduleErrors({ startDate: at('2031-01-01T09:00:00Z'), endDate: at('2031-01-01T09:00:00Z') }, undefined, NOW).map((e) => e.field)).toEqual(['endDate']);
  });

  test('update: an end compared with the stored start, a moved start with the stored end', () => {
    expect(scheduleErrors({ endDate: at('2031-01-01T08:00:00Z') }, stored, NOW).map((e) => e.field)).toEqual(['endDate']);
    expect(scheduleErrors({ startDate: at('2031-01-02T09:00:00Z') }, stored, NOW).map((e) => e.field)).toEqual(['endDate']);
    expect(scheduleErrors({ startDate: at('2021-01-01T09:00:00Z') }, stored, NOW).map((e) => e.field)).toEqual(['startDate']);
    expect(scheduleErrors({}, stored, NOW)).toEqual([]);
  });

  test('update: an unchanged start that has passed is no change', () => {
    const past = { startDate: at('2029-01-01T09:00:00Z'), endDate: at('2029-01-01T17:00:00Z') };
    expect(scheduleErrors({ startDate: past.startDate }, past, NOW)).toEqual([]);
  });
});

describe('capacity, delete and booking rules', () => {
  test('capacity never below the registrations (D4)', () => {
    expect(capacityErrors(4, 5).map((e) => e.field)).toEqual(['capacity']);
    expect(capacityErrors(5, 5)).toEqual([]);
    expect(capacityErrors(null, 5)).toEqual([]);
    expect(capacityErrors(undefined, 5)).toEqual([]);
  });

  test('an event with confirmed bookings cannot be deleted (D3)', () => {
    expect(thrown(() => assertDeletable(2))).toMatchObject({ code: 'EVENT_HAS_BOOKINGS', details: { bookingCount: 2 } });
    expect(thrown(() => assertDeletable(0))).toBeUndefined();
  });

  test.each([DRAFT, CANCELLED, COMPLETED])('a %s event cannot be booked (D7)', (status) => {
    expect(thrown(() => assertBookable({ slug: 'x', status }))).toMatchObject({ code: 'EVENT_NOT_PUBLISHED', details: { slug: 'x', status } });
  });

  test('a PUBLISHED event can be booked', () => {
    expect(thrown(() => assertBookable({ slug: 'x', status: PUBLISHED }))).toBeUndefined();
  });
});
