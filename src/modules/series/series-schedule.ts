import type { FieldError } from '../../foundation/errors/app-error';
import { ruleDates } from './rrule-runner';
import { expandSchedule, MUST_END, type Expanded } from './series-expansion';
import { parseRecurrence, recurrenceLines, type RecurrenceDate, type RuleOptions } from './series-recurrence';
import { firstStartErrors } from './series.policy';
import { icalUtc, instantOf, isKnownZone, localDate, localOf, type Floating } from './series-time';

/*
 * A series' schedule checked and expanded (D28): its timezone, firstStart, duration and recurrence,
 * every failing field reported at once (D4) with those its input's own rules found, and the
 * rule's limits on the field `recurrence`. Also how a split (FOLLOWING) divides the lines between the
 * earlier series and the new one.
 */

export interface ScheduleFields {
  timezone: string;
  firstStart: string;
  durationMinutes: number;
  recurrence: readonly string[];
}

export type CheckedSchedule = { errors: FieldError[] } | { errors: []; firstStart: Floating; occurrences: Expanded[] };

/**
 * `fields` checked (the fields in `failing` already failed their input's rules: not checked again,
 * and nothing is expanded while one of them fails) and, when they pass, expanded.
 */
export async function checkSchedule(fields: ScheduleFields, now: Date, options: { mustBeFuture: boolean; failing: ReadonlySet<string> }): Promise<CheckedSchedule> {
  const { failing } = options;
  const zoneValid = !failing.has('timezone') && isKnownZone(fields.timezone);
  const errors: FieldError[] = [];
  if (!failing.has('timezone') && !zoneValid) errors.push({ field: 'timezone', message: 'timezone must be an IANA time zone name such as Europe/Paris' });
  const start = failing.has('firstStart') ? { errors: [] } : firstStartErrors(fields.firstStart, zoneValid ? fields.timezone : undefined, now, options.mustBeFuture);
  errors.push(...start.errors);
  const parsed = failing.has('recurrence') ? { errors: [] } : parseRecurrence(recurrenceLines(fields.recurrence), zoneValid ? fields.timezone : undefined);
  errors.push(...parsed.errors.map((message) => ({ field: 'recurrence', message })));
  // The rule must end (D28): said whatever else fails, as its other limits are once it can be expanded.
  if (parsed.recurrence?.rules.some((rule) => rule.count === undefined && rule.until === undefined)) {
    errors.push({ field: 'recurrence', message: MUST_END });
  }
  const ready = 'recurrence' in parsed && parsed.recurrence && start.local !== undefined && zoneValid && !failing.has('durationMinutes');
  if (errors.length > 0 || !ready) return { errors };
  const expansion = await expandSchedule({ timeZone: fields.timezone, firstStart: start.local!, durationMinutes: fields.durationMinutes, recurrence: parsed.recurrence! });
  if ('errors' in expansion) return { errors: expansion.errors.map((message) => ({ field: 'recurrence', message })) };
  return { errors: [], firstStart: start.local!, occurrences: expansion.occurrences };
}

const isRule = (line: string) => /^RRULE:/i.test(line.trim());
const valuePart = (line: string) => line.slice(line.indexOf(':') + 1);

/** An RRULE line without the parts named (COUNT, UNTIL), and with `extra` appended. */
function rewriteRule(line: string, drop: readonly string[], extra: string): string {
  const parts = valuePart(line.trim())
    .split(';')
    .filter((part) => !drop.includes(part.split('=')[0].toUpperCase()));
  return `RRULE:${[...parts, extra].join(';')}`;
}

/** A date line's values on one side of `at` (kept when `before` says so), or none. */
function splitDates(line: string, at: Floating, before: boolean, timeZone: string): string | undefined {
  const trimmed = line.trim();
  const head = trimmed.slice(0, trimmed.indexOf(':'));
  const values = valuePart(trimmed).split(',');
  const kept = values.filter((value) => {
    const parsed = parseRecurrence([`${head}:${value}`], timeZone).recurrence;
    const date: RecurrenceDate | undefined = parsed?.rdates[0] ?? parsed?.exdates[0];
    if (!date) return before;
    const local = date.kind === 'utc' ? localOf(date.instant, timeZone) : date.value;
    const isBefore = date.kind === 'date' ? localDate(local) < localDate(at) : local < at;
    return isBefore === before;
  });
  return kept.length > 0 ? `${head}:${kept.join(',')}` : undefined;
}

/** How many dates of one rule from `firstStart` are at `at` or later (RFC 5545: DTSTART counts toward COUNT). */
async function datesFrom(rule: RuleOptions, firstStart: Floating, timeZone: string, end: Floating, at: Floating): Promise<number | undefined> {
  const answer = await ruleDates({ rules: [rule], start: firstStart, until: [rule.until === undefined ? null : localOf(rule.until, timeZone)], end, beyond: 1, cap: 1_002 });
  if ('error' in answer) return undefined;
  const [dates] = answer.dates;
  const counted = rule.count !== undefined && dates[0] !== firstStart && dates.length >= rule.count ? [firstStart, ...dates.slice(0, rule.count - 1)] : dates;
  return counted.filter((date) => date >= at).length;
}

/**
 * The lines of a series split at the occurrence whose key is `at` (FOLLOWING): the earlier series'
 * rules end just before it (UNTIL one second before its start), the new one's start there and end
 * where the old ones did (a COUNT becomes the number of its dates left, so a new first start keeps
 * them all); RDATE and EXDATE values go to the side of their date.
 */
export async function splitRecurrence(
  lines: readonly string[],
  firstStart: Floating,
  at: Floating,
  timeZone: string,
  end: Floating,
): Promise<{ earlier: string[]; later: string[] }> {
  const parsed = parseRecurrence(lines, timeZone).recurrence;
  const earlier: string[] = [];
  const later: string[] = [];
  const stop = `UNTIL=${icalUtc(instantOf(at, timeZone) - 1_000)}`;
  let ruleIndex = 0;
  for (const line of lines) {
    if (isRule(line)) {
      const rule = parsed?.rules[ruleIndex++];
      earlier.push(rewriteRule(line, ['COUNT', 'UNTIL'], stop));
      const left = rule?.count !== undefined ? await datesFrom(rule, firstStart, timeZone, end, at) : undefined;
      if (left !== undefined && left > 0) {
        later.push(rewriteRule(line, ['COUNT'], `COUNT=${left}`));
      } else if (left === 0) {
        continue;
      } else {
        later.push(line.trim());
      }
      continue;
    }
    const before = splitDates(line, at, true, timeZone);
    const after = splitDates(line, at, false, timeZone);
    if (before) earlier.push(before);
    if (after) later.push(after);
  }
  return { earlier, later };
}
