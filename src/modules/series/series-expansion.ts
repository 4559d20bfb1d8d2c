import { ruleDates } from './rrule-runner';
import type { Recurrence, RecurrenceDate } from './series-recurrence';
import { addCalendarYears, formatLocalDateTime, instantOf, localDate, localOf, type Floating } from './series-time';

/*
 * A series' occurrences (D28): the rule expanded on local wall-clock times (rrule, on its worker:
 * rrule-runner.ts), then each local time mapped to its instant in the series' timezone
 * (series-time.ts), so an 18:00 class stays 18:00 local across daylight-saving changes. The limits:
 * every RRULE ends (COUNT or UNTIL), at most 1,000 occurrences (RDATEs included), the last one
 * starting at most 3 calendar years after firstStart.
 */

export const MAX_OCCURRENCES = 1_000;
export const MUST_END = 'recurrence must end: give every RRULE a COUNT or an UNTIL (e.g. UNTIL=20270601T000000Z)';
export const MAX_YEARS = 3;

/** What a series' occurrences are made from. */
export interface Schedule {
  timeZone: string;
  firstStart: Floating;
  durationMinutes: number;
  recurrence: Recurrence;
}

/** One occurrence: its local start (the rule's date: its key within the series) and its instants. */
export interface Expanded {
  key: Floating;
  start: number;
  end: number;
}

export type Expansion = { occurrences: Expanded[] } | { errors: string[] };

/** The local time of an RDATE or EXDATE value (a whole date: firstStart's time of day that day). */
function localValue(value: RecurrenceDate, schedule: Schedule): Floating {
  if (value.kind === 'utc') return localOf(value.instant, schedule.timeZone);
  if (value.kind === 'local') return value.value;
  return value.value + (schedule.firstStart % 86_400_000);
}

/**
 * The occurrences in order, or the messages (field `recurrence`) of each limit it breaks. DTSTART
 * (firstStart) is always the first occurrence and counts toward COUNT, as RFC 5545 has it, unless
 * an EXDATE removes it.
 */
export async function expandSchedule(schedule: Schedule): Promise<Expansion> {
  const { recurrence, firstStart, timeZone } = schedule;
  const endless = recurrence.rules.filter((rule) => rule.count === undefined && rule.until === undefined);
  if (endless.length > 0) return { errors: [MUST_END] };
  const lastAllowed = addCalendarYears(firstStart, MAX_YEARS);
  const excluded = recurrence.exdates.length;
  const answer = await ruleDates({
    rules: recurrence.rules,
    start: firstStart,
    until: recurrence.rules.map((rule) => (rule.until === undefined ? null : localOf(rule.until, timeZone))),
    end: lastAllowed,
    // Dates removed by EXDATE are looked past, so that the limits are judged on what is left.
    beyond: excluded + 1,
    cap: MAX_OCCURRENCES + excluded + 1,
  });
  if ('error' in answer) return { errors: [`recurrence cannot be expanded: ${answer.error}`] };

  const keys = new Set<Floating>([firstStart]);
  const errors: string[] = [];
  answer.dates.forEach((dates, index) => {
    const rule = recurrence.rules[index];
    // RFC 5545: DTSTART is the first instance and counts toward COUNT even when the rule does not match it.
    const counted = rule.count !== undefined && dates[0] !== firstStart && dates.length >= rule.count ? dates.slice(0, rule.count - 1) : dates;
    for (const key of counted) if (rule.until === undefined || instantOf(key, timeZone) <= rule.until) keys.add(key);
  });
  for (const value of recurrence.rdates) {
    const key = localValue(value, schedule);
    if (key < firstStart) errors.push(`RDATE ${formatLocalDateTime(key)} is before firstStart: a series starts at firstStart`);
    keys.add(key);
  }
  const exactExclusions = new Set(recurrence.exdates.filter((value) => value.kind !== 'date').map((value) => localValue(value, schedule)));
  const dayExclusions = new Set(recurrence.exdates.filter((value) => value.kind === 'date').map((value) => localDate(value.value)));
  const kept = [...keys].filter((key) => !exactExclusions.has(key) && !dayExclusions.has(localDate(key))).sort((a, b) => a - b);

  if (kept.length > MAX_OCCURRENCES) {
    errors.push(`recurrence expands to more than ${MAX_OCCURRENCES.toLocaleString('en-US')} occurrences (RDATEs included); at most ${MAX_OCCURRENCES.toLocaleString('en-US')} are allowed`);
  }
  if (kept.some((key) => key > lastAllowed)) {
    errors.push(
      `recurrence reaches more than ${MAX_YEARS} years after firstStart: the last occurrence may start at ${formatLocalDateTime(lastAllowed)} at the latest`,
    );
  }
  if (kept.length === 0) errors.push('recurrence leaves no occurrence (EXDATE removes every date)');
  if (errors.length > 0) return { errors };
  const duration = schedule.durationMinutes * 60_000;
  return {
    occurrences: kept.map((key) => {
      const start = instantOf(key, timeZone);
      return { key, start, end: start + duration };
    }),
  };
}
