import { expandSchedule, type Expanded } from '../../src/modules/series/series-expansion';
import { parseRecurrence, recurrenceLines, MAX_RECURRENCE_LINES } from '../../src/modules/series/series-recurrence';
import { addCalendarYears, formatLocalDateTime, instantOf, localOf, parseLocalDateTime } from '../../src/modules/series/series-time';

// D28: a series' rule read strictly, expanded on local wall-clock times (rrule, on its worker) and
// mapped to instants of the series' timezone (luxon), with RFC 5545's reading of the daylight-saving
// gap and overlap; its limits. No database.

const local = (text: string) => parseLocalDateTime(text)!;
const iso = (instant: number) => new Date(instant).toISOString();

async function expand(timeZone: string, firstStart: string, lines: string[], durationMinutes = 60): Promise<Expanded[]> {
  const parsed = parseRecurrence(lines, timeZone);
  expect(parsed.errors).toEqual([]);
  const result = await expandSchedule({ timeZone, firstStart: local(firstStart), durationMinutes, recurrence: parsed.recurrence! });
  if ('errors' in result) throw new Error(result.errors.join('; '));
  return result.occurrences;
}

async function refusal(timeZone: string, firstStart: string, lines: string[]): Promise<string[]> {
  const parsed = parseRecurrence(lines, timeZone);
  if (parsed.errors.length > 0) return parsed.errors;
  const result = await expandSchedule({ timeZone, firstStart: local(firstStart), durationMinutes: 60, recurrence: parsed.recurrence! });
  return 'errors' in result ? result.errors : [];
}

describe('local times and their instants (RFC 5545 3.3.5)', () => {
  test('a time in the spring gap is read with the offset before it: 02:30 becomes 03:30 daylight time', () => {
    expect(iso(instantOf(local('2027-03-28T02:30'), 'Europe/Berlin'))).toBe('2027-03-28T01:30:00.000Z');
    expect(iso(instantOf(local('2027-03-14T02:30'), 'America/New_York'))).toBe('2027-03-14T07:30:00.000Z');
    expect(formatLocalDateTime(localOf(instantOf(local('2027-03-14T02:30'), 'America/New_York'), 'America/New_York'))).toBe('2027-03-14T03:30');
  });

  test('a time of the autumn overlap is the first of the two (daylight time)', () => {
    expect(iso(instantOf(local('2027-10-31T02:30'), 'Europe/Berlin'))).toBe('2027-10-31T00:30:00.000Z');
    expect(iso(instantOf(local('2027-11-07T01:30'), 'America/New_York'))).toBe('2027-11-07T05:30:00.000Z');
  });

  test('ordinary times map both ways; three calendar years keep the date (29 February becomes the 28th)', () => {
    expect(iso(instantOf(local('2027-07-01T18:00'), 'Europe/Berlin'))).toBe('2027-07-01T16:00:00.000Z');
    expect(formatLocalDateTime(addCalendarYears(local('2028-02-29T18:00'), 3))).toBe('2031-02-28T18:00');
    expect(formatLocalDateTime(addCalendarYears(local('2027-03-01T18:00'), 3))).toBe('2030-03-01T18:00');
    // A local date-time takes seconds (a fraction of one is dropped), never an offset, and exists on the calendar.
    expect(parseLocalDateTime('2027-03-01T18:00:00.000')).toBe(local('2027-03-01T18:00'));
    expect(formatLocalDateTime(local('2027-03-01T18:00:30'))).toBe('2027-03-01T18:00:30');
    for (const text of ['2027-03-01T18:00Z', '2027-03-01T18:00+01:00', '2027-02-29T18:00', '2027-03-01T24:00', '2027-03-01 18:00']) expect(parseLocalDateTime(text)).toBeUndefined();
  });
});

describe('expansion', () => {
  test.each([
    ['Europe/Berlin', '2027-03-21T18:00', 'UNTIL=20271108T000000Z'],
    ['America/New_York', '2027-03-07T18:00', 'UNTIL=20271115T000000Z'],
  ])('an 18:00 class stays at 18:00 local across the March and autumn changes (%s)', async (timeZone, firstStart, until) => {
    const occurrences = await expand(timeZone, firstStart, [`RRULE:FREQ=WEEKLY;BYDAY=SU;${until}`]);
    expect(occurrences.length).toBeGreaterThan(30);
    expect(new Set(occurrences.map((item) => formatLocalDateTime(localOf(item.start, timeZone)).slice(11)))).toEqual(new Set(['18:00']));
    expect(new Set(occurrences.map((item) => new Date(item.start).getUTCHours())).size).toBe(2);
    // A duration is of real time: 60 minutes across a change too.
    expect(occurrences.every((item) => item.end - item.start === 3_600_000)).toBe(true);
  });

  test('a weekly 02:30 series meets the gap and the overlap as single instants read RFC 5545\'s way', async () => {
    const occurrences = await expand('Europe/Berlin', '2027-03-21T02:30', ['RRULE:FREQ=WEEKLY;BYDAY=SU;UNTIL=20271108T000000Z']);
    const byDate = new Map(occurrences.map((item) => [formatLocalDateTime(item.key).slice(0, 10), iso(item.start)]));
    expect(byDate.get('2027-03-28')).toBe('2027-03-28T01:30:00.000Z');
    expect(byDate.get('2027-10-31')).toBe('2027-10-31T00:30:00.000Z');
  });

  test('firstStart is the first occurrence and counts toward COUNT, as DTSTART does (RFC 5545)', async () => {
    // 2027-03-01 is a Monday; the rule's days are Tuesdays.
    const occurrences = await expand('UTC', '2027-03-01T18:00', ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=3']);
    expect(occurrences.map((item) => formatLocalDateTime(item.key))).toEqual(['2027-03-01T18:00', '2027-03-02T18:00', '2027-03-09T18:00']);
  });

  test('RDATE values are added, EXDATE values (a date-time, or a whole date) removed; UNTIL is inclusive', async () => {
    const occurrences = await expand('Europe/Berlin', '2027-03-02T18:00', [
      'RRULE:FREQ=DAILY;UNTIL=20270306T170000Z',
      'RDATE:20270310T120000,20270311',
      'EXDATE:20270303T180000',
      'EXDATE;VALUE=DATE:20270305',
    ]);
    expect(occurrences.map((item) => formatLocalDateTime(item.key))).toEqual(['2027-03-02T18:00', '2027-03-04T18:00', '2027-03-06T18:00', '2027-03-10T12:00', '2027-03-11T18:00']);
  });

  test('the limits, each named: must end, 1,000 occurrences (RDATEs included), 3 years', async () => {
    expect(await refusal('UTC', '2027-03-01T18:00', ['RRULE:FREQ=DAILY'])).toEqual([expect.stringMatching(/must end/)]);
    expect(await refusal('UTC', '2027-03-01T18:00', ['RRULE:FREQ=DAILY;COUNT=999', 'RDATE:20300101T100000,20300102T100000'])).toEqual([expect.stringMatching(/more than 1,000/)]);
    expect(await refusal('UTC', '2027-03-01T18:00', ['RRULE:FREQ=DAILY;COUNT=1000'])).toEqual([]);
    expect(await refusal('UTC', '2027-03-01T18:00', ['RRULE:FREQ=DAILY;COUNT=1002', 'EXDATE:20270302T180000,20270303T180000'])).toEqual([]);
    expect(await refusal('UTC', '2027-03-01T18:00', ['RRULE:FREQ=YEARLY;COUNT=5'])).toEqual([expect.stringMatching(/more than 3 years after firstStart/)]);
    expect(await refusal('UTC', '2027-03-01T18:00', ['RRULE:FREQ=YEARLY;COUNT=4'])).toEqual([]);
    expect(await refusal('UTC', '2027-03-01T18:00', ['RRULE:FREQ=WEEKLY;COUNT=2', 'RDATE:20260101T100000'])).toEqual([expect.stringMatching(/before firstStart/)]);
  });

  test('a rule whose parts never match again is refused within the deadline, and the next rule expands normally', async () => {
    const started = Date.now();
    expect(await refusal('UTC', '2027-03-01T18:00', ['RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30;COUNT=3'])).toEqual([expect.stringMatching(/longer than 2 seconds/)]);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(await expand('UTC', '2027-03-01T18:00', ['RRULE:FREQ=DAILY;COUNT=2'])).toHaveLength(2);
  });
});

describe('reading the lines', () => {
  test.each([
    ['RRULE:FREQ=WEEKLY;COUNT=abc', /COUNT must be a whole number/],
    ['RRULE:FREQ=FORTNIGHTLY;COUNT=2', /FREQ must be one of/],
    ['RRULE:FREQ=WEEKLY;BYDAY=XX;COUNT=2', /BYDAY must list weekdays/],
    ['RRULE:FREQ=WEEKLY;BYDAY=1MO;COUNT=2', /numbered BYDAY/],
    ['RRULE:FREQ=MONTHLY;BYWEEKNO=3;COUNT=2', /BYWEEKNO goes only with FREQ=YEARLY/],
    ['RRULE:FREQ=WEEKLY;BYMONTHDAY=3;COUNT=2', /BYMONTHDAY does not go with FREQ=WEEKLY/],
    ['RRULE:FREQ=WEEKLY;COUNT=2;UNTIL=20270601T000000Z', /COUNT or UNTIL, not both/],
    ['RRULE:FREQ=WEEKLY;UNTIL=20270601T000000', /UNTIL must be a UTC date-time/],
    ['RRULE:FREQ=WEEKLY;COUNT=2;COUNT=3', /given twice/],
    ['RRULE:FREQ=WEEKLY;BYHOUR=24;COUNT=2', /BYHOUR must list 0 to 23/],
    ['RRULE:FREQ=WEEKLY;BYSETPOS=1;COUNT=2', /BYSETPOS needs another BY part/],
    ['RRULE:FREQ=WEEKLY;FOO=1;COUNT=2', /unknown rule part/],
    ['DTSTART:20270301T180000', /firstStart/],
    ['EXRULE:FREQ=DAILY', /EXRULE is not supported/],
    ['RDATE:2027-03-05', /RDATE values are local date-times/],
    ['RDATE:20270230T180000', /not a date-time/],
    ['RDATE;TZID=America/New_York:20270305T180000', /another/],
    ['RDATE;VALUE=PERIOD:20270305T180000/PT1H', /parameters/],
    ['X-WR-TIMEZONE:UTC', /only RRULE, RDATE and EXDATE/],
    ['no colon at all', /NAME:VALUE/],
  ])('%s', (line, message) => {
    const { errors } = parseRecurrence(['RRULE:FREQ=DAILY;COUNT=2', line], 'Europe/Berlin');
    expect(errors).toEqual([expect.stringMatching(message)]);
    expect(errors[0]).toMatch(/^recurrence line 2/);
  });

  test('bounded before anything is read: the number of lines, their length; an RRULE is needed', () => {
    expect(parseRecurrence(Array.from({ length: MAX_RECURRENCE_LINES + 1 }, () => 'RDATE:20270305T180000'), 'UTC').errors).toEqual([expect.stringMatching(/at most 2000 are allowed/)]);
    expect(parseRecurrence([`RRULE:FREQ=DAILY;COUNT=2;${'X'.repeat(25_000)}`], 'UTC').errors).toEqual([expect.stringMatching(/longer than/)]);
    expect(parseRecurrence(['RDATE:20270305T180000'], 'UTC').errors).toEqual([expect.stringMatching(/needs an RRULE/)]);
    expect(parseRecurrence(['rrule:freq=weekly;byday=tu;count=2'], 'UTC').errors).toEqual([]);
    // iCalendar text in one element: its lines, unfolded.
    expect(recurrenceLines(['RRULE:FREQ=WEEKLY;BYDAY=TU;\r\n COUNT=3\r\nEXDATE:20270309T180000\n', ' RDATE:20270305T180000 '])).toEqual([
      'RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=3',
      'EXDATE:20270309T180000',
      'RDATE:20270305T180000',
    ]);
  });
});
