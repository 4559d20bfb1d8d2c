import { floatingOf, type Floating } from './series-time';

/*
 * A series' `recurrence` (D28): RFC 5545 lines, `RRULE:` (at least one), `RDATE:` and `EXDATE:`, read
 * here into plain options before anything is expanded, every value checked against the RFC's grammar
 * and ranges, so that the library that expands them (rrule, series-expansion.ts) is never handed
 * something it reads loosely (rrule's own parser takes `COUNT=abc` and `BYDAY=XX` without a word).
 * The input is bounded first (lines, their length, values per line), so a hostile list costs little.
 * Pure: every problem is a message for the field `recurrence`.
 */

export const MAX_RECURRENCE_LINES = 2_000;
export const MAX_LINE_LENGTH = 20_000;
export const MAX_RULES = 10;
/** Values of one RDATE or EXDATE line (more RDATEs than occurrences allowed could never pass). */
const MAX_VALUES_PER_LINE = 1_001;

/** rrule's Frequency numbers, by RFC name. */
export const FREQUENCIES = { YEARLY: 0, MONTHLY: 1, WEEKLY: 2, DAILY: 3, HOURLY: 4, MINUTELY: 5, SECONDLY: 6 } as const;
const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;

/** One RRULE as rrule's options, plain (weekdays as [index, nth]); UNTIL an instant (it is UTC). */
export interface RuleOptions {
  freq: number;
  count?: number;
  until?: number;
  interval?: number;
  bysecond?: number[];
  byminute?: number[];
  byhour?: number[];
  byweekday?: Array<[weekday: number, nth: number | null]>;
  bymonthday?: number[];
  byyearday?: number[];
  byweekno?: number[];
  bymonth?: number[];
  bysetpos?: number[];
  wkst?: number;
}

/** An RDATE or EXDATE value: a local date-time, a UTC instant (`…Z`), or a whole local date (VALUE=DATE). */
export type RecurrenceDate = { kind: 'local'; value: Floating } | { kind: 'utc'; instant: number } | { kind: 'date'; value: Floating };

export interface Recurrence {
  rules: RuleOptions[];
  rdates: RecurrenceDate[];
  exdates: RecurrenceDate[];
}

export interface ParsedRecurrence {
  recurrence?: Recurrence;
  /** Messages for the field `recurrence`, every problem found. */
  errors: string[];
}

/**
 * The lines as given, one per element, or several in one element as iCalendar text has them (CRLF or
 * LF between them, a long line folded onto the next with a leading space, RFC 5545 3.1): unfolded,
 * trimmed, empty ones dropped. What a series stores. Bounded like parseRecurrence (a list or text
 * longer than it takes is cut here and refused there).
 */
export function recurrenceLines(given: readonly string[]): string[] {
  const lines: string[] = [];
  for (const element of given.slice(0, MAX_RECURRENCE_LINES + 1)) {
    for (const line of element.replace(/\r?\n[ \t]/g, '').split(/\r?\n/)) {
      const trimmed = line.trim();
      if (trimmed !== '') lines.push(trimmed);
      if (lines.length > MAX_RECURRENCE_LINES) return lines;
    }
  }
  return lines;
}

/** Reads the lines; `timeZone` (when valid) is what a TZID parameter must name. */
export function parseRecurrence(lines: readonly unknown[], timeZone: string | undefined): ParsedRecurrence {
  if (lines.length > MAX_RECURRENCE_LINES) return { errors: [`recurrence has ${lines.length} lines; at most ${MAX_RECURRENCE_LINES} are allowed`] };
  const errors: string[] = [];
  const recurrence: Recurrence = { rules: [], rdates: [], exdates: [] };
  lines.forEach((line, index) => {
    const where = `recurrence line ${index + 1}`;
    if (typeof line !== 'string') return void errors.push(`${where} must be a string`);
    if (line.length > MAX_LINE_LENGTH) return void errors.push(`${where} is longer than ${MAX_LINE_LENGTH} characters`);
    const problem = readLine(line.trim(), recurrence, timeZone);
    if (problem) errors.push(`${where}: ${problem}`);
  });
  if (errors.length === 0 && recurrence.rules.length === 0) errors.push('recurrence needs an RRULE line, e.g. RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=10');
  if (recurrence.rules.length > MAX_RULES) errors.push(`recurrence has ${recurrence.rules.length} RRULE lines; at most ${MAX_RULES} are allowed`);
  return errors.length > 0 ? { errors } : { recurrence, errors };
}

/** One content line into `into`; a message when it is malformed. */
function readLine(line: string, into: Recurrence, timeZone: string | undefined): string | undefined {
  const colon = valueStart(line);
  if (colon < 0) return 'expected NAME:VALUE, e.g. RRULE:FREQ=WEEKLY;COUNT=10';
  const [name, ...parameters] = line.slice(0, colon).split(';');
  const value = line.slice(colon + 1);
  switch (name.toUpperCase()) {
    case 'RRULE':
      if (parameters.length > 0) return 'RRULE takes no parameters';
      return readRule(value, into);
    case 'RDATE':
    case 'EXDATE': {
      const target = name.toUpperCase() === 'RDATE' ? into.rdates : into.exdates;
      return readDates(name.toUpperCase(), parameters, value, target, timeZone);
    }
    case 'DTSTART':
      return 'DTSTART is not a recurrence line: the series gives it as firstStart';
    case 'EXRULE':
      return 'EXRULE is not supported (RFC 5545 deprecates it): list the dates with EXDATE';
    default:
      return `unknown line ${JSON.stringify(name.slice(0, 40))}: only RRULE, RDATE and EXDATE are allowed`;
  }
}

/** Where the value starts: the first `:` outside a quoted parameter value. */
function valueStart(line: string): number {
  let quoted = false;
  for (let at = 0; at < line.length; at += 1) {
    if (line[at] === '"') quoted = !quoted;
    else if (line[at] === ':' && !quoted) return at;
  }
  return -1;
}

const INTEGER = /^[+-]?\d{1,6}$/;

/** A list part (`BYHOUR=9,18`): integers within [min, max], zero allowed only when `min` is 0. */
function integers(text: string, part: string, min: number, max: number, signed: boolean): number[] | string {
  const values = text.split(',');
  if (values.length > 366) return `${part} has more than 366 values`;
  const numbers: number[] = [];
  for (const value of values) {
    const number = INTEGER.test(value) ? Number(value) : NaN;
    const inRange = signed ? number !== 0 && Math.abs(number) >= min && Math.abs(number) <= max : number >= min && number <= max;
    if (!Number.isInteger(number) || !inRange) return `${part} must list ${signed ? `±${min} to ±${max}` : `${min} to ${max}`}, not ${JSON.stringify(value.slice(0, 20))}`;
    numbers.push(number);
  }
  return numbers;
}

const UNTIL_UTC = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** The value of an RRULE line. */
function readRule(value: string, into: Recurrence): string | undefined {
  const options: Partial<RuleOptions> = {};
  const seen = new Set<string>();
  for (const piece of value.split(';')) {
    const equals = piece.indexOf('=');
    if (equals <= 0) return `expected PART=VALUE in the rule, not ${JSON.stringify(piece.slice(0, 40))}`;
    const part = piece.slice(0, equals).toUpperCase();
    const text = piece.slice(equals + 1).toUpperCase();
    if (seen.has(part)) return `${part} is given twice`;
    seen.add(part);
    const problem = readRulePart(part, text, options);
    if (problem) return problem;
  }
  if (options.freq === undefined) return 'the rule needs FREQ (DAILY, WEEKLY, MONTHLY, YEARLY…)';
  if (options.count !== undefined && options.until !== undefined) return 'the rule takes COUNT or UNTIL, not both';
  const problem = ruleShapeProblem(options as RuleOptions);
  if (problem) return problem;
  into.rules.push(options as RuleOptions);
  return undefined;
}

function readRulePart(part: string, text: string, options: Partial<RuleOptions>): string | undefined {
  const list = (key: keyof RuleOptions, min: number, max: number, signed = false): string | undefined => {
    const values = integers(text, part, min, max, signed);
    if (typeof values === 'string') return values;
    (options as Record<string, unknown>)[key] = values;
    return undefined;
  };
  switch (part) {
    case 'FREQ': {
      if (!Object.hasOwn(FREQUENCIES, text)) return `FREQ must be one of ${Object.keys(FREQUENCIES).join(', ')}`;
      options.freq = FREQUENCIES[text as keyof typeof FREQUENCIES];
      return undefined;
    }
    case 'COUNT':
    case 'INTERVAL': {
      const number = /^\d{1,6}$/.test(text) ? Number(text) : 0;
      if (number < 1) return `${part} must be a whole number from 1 to 999999`;
      if (part === 'COUNT') options.count = number;
      else options.interval = number;
      return undefined;
    }
    case 'UNTIL': {
      const match = UNTIL_UTC.exec(text);
      const until = match ? floatingOf(...(match.slice(1).map(Number) as [number, number, number, number, number, number])) : undefined;
      if (until === undefined) return 'UNTIL must be a UTC date-time such as 20270601T000000Z (RFC 5545 with a zoned start)';
      options.until = until;
      return undefined;
    }
    case 'BYSECOND':
      return list('bysecond', 0, 59);
    case 'BYMINUTE':
      return list('byminute', 0, 59);
    case 'BYHOUR':
      return list('byhour', 0, 23);
    case 'BYMONTHDAY':
      return list('bymonthday', 1, 31, true);
    case 'BYYEARDAY':
      return list('byyearday', 1, 366, true);
    case 'BYWEEKNO':
      return list('byweekno', 1, 53, true);
    case 'BYMONTH':
      return list('bymonth', 1, 12);
    case 'BYSETPOS':
      return list('bysetpos', 1, 366, true);
    case 'BYDAY':
      return readWeekdays(text, options);
    case 'WKST': {
      const index = WEEKDAYS.indexOf(text as (typeof WEEKDAYS)[number]);
      if (index < 0) return `WKST must be one of ${WEEKDAYS.join(', ')}`;
      options.wkst = index;
      return undefined;
    }
    default:
      return `unknown rule part ${JSON.stringify(part.slice(0, 20))}`;
  }
}

const WEEKDAY_VALUE = /^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/;

function readWeekdays(text: string, options: Partial<RuleOptions>): string | undefined {
  const values = text.split(',');
  if (values.length > 366) return 'BYDAY has more than 366 values';
  const weekdays: Array<[number, number | null]> = [];
  for (const value of values) {
    const match = WEEKDAY_VALUE.exec(value);
    const nth = match?.[1] === undefined ? null : Number(match[1]);
    if (!match || (nth !== null && (nth === 0 || Math.abs(nth) > 53))) {
      return `BYDAY must list weekdays such as MO, TU or 1MO, -1FR (±1 to ±53), not ${JSON.stringify(value.slice(0, 20))}`;
    }
    weekdays.push([WEEKDAYS.indexOf(match[2] as (typeof WEEKDAYS)[number]), nth]);
  }
  options.byweekday = weekdays;
  return undefined;
}

/** The RFC 5545 rules on which parts go with which FREQ (3.3.10). */
function ruleShapeProblem(rule: RuleOptions): string | undefined {
  const { freq } = rule;
  const name = Object.keys(FREQUENCIES).find((key) => FREQUENCIES[key as keyof typeof FREQUENCIES] === freq);
  if (rule.byweekno && freq !== FREQUENCIES.YEARLY) return `BYWEEKNO goes only with FREQ=YEARLY, not ${name}`;
  if (rule.byyearday && (freq === FREQUENCIES.DAILY || freq === FREQUENCIES.WEEKLY || freq === FREQUENCIES.MONTHLY)) {
    return `BYYEARDAY does not go with FREQ=${name}`;
  }
  if (rule.bymonthday && freq === FREQUENCIES.WEEKLY) return 'BYMONTHDAY does not go with FREQ=WEEKLY';
  const numbered = rule.byweekday?.some(([, nth]) => nth !== null);
  if (numbered && freq !== FREQUENCIES.MONTHLY && freq !== FREQUENCIES.YEARLY) return `a numbered BYDAY (1MO) goes only with FREQ=MONTHLY or YEARLY, not ${name}`;
  if (numbered && rule.byweekno) return 'a numbered BYDAY (1MO) does not go with BYWEEKNO';
  const byParts = [rule.bysecond, rule.byminute, rule.byhour, rule.byweekday, rule.bymonthday, rule.byyearday, rule.byweekno, rule.bymonth];
  if (rule.bysetpos && !byParts.some(Boolean)) return 'BYSETPOS needs another BY part (BYDAY, BYMONTHDAY…)';
  return undefined;
}

const DATE_TIME_VALUE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/;
const DATE_VALUE = /^(\d{4})(\d{2})(\d{2})$/;

/** The values of an RDATE or EXDATE line (comma-separated), with its parameters (VALUE, TZID). */
function readDates(name: string, parameters: readonly string[], value: string, into: RecurrenceDate[], timeZone: string | undefined): string | undefined {
  let type = 'DATE-TIME';
  for (const parameter of parameters) {
    const [key, raw = ''] = parameter.split('=', 2);
    const given = raw.replace(/^"|"$/g, '');
    if (key.toUpperCase() === 'VALUE' && ['DATE-TIME', 'DATE'].includes(given.toUpperCase())) type = given.toUpperCase();
    else if (key.toUpperCase() === 'TZID') {
      if (timeZone !== undefined && given !== timeZone) return `${name} values are local times of the series' timezone ${timeZone}; TZID=${given.slice(0, 60)} is another`;
    } else return `${name} takes the parameters VALUE=DATE-TIME, VALUE=DATE or TZID, not ${JSON.stringify(parameter.slice(0, 40))}`;
  }
  const values = value.split(',');
  if (values.length > MAX_VALUES_PER_LINE) return `${name} lists more than ${MAX_VALUES_PER_LINE} values`;
  for (const text of values) {
    const dateTime = DATE_TIME_VALUE.exec(text);
    const date = DATE_VALUE.exec(text);
    if (dateTime && type === 'DATE-TIME') {
      const local = floatingOf(...(dateTime.slice(1, 7).map(Number) as [number, number, number, number, number, number]));
      if (local === undefined) return `${JSON.stringify(text)} is not a date-time`;
      into.push(dateTime[7] === 'Z' ? { kind: 'utc', instant: local } : { kind: 'local', value: local });
    } else if (date) {
      const day = floatingOf(Number(date[1]), Number(date[2]), Number(date[3]));
      if (day === undefined) return `${JSON.stringify(text)} is not a date`;
      into.push({ kind: 'date', value: day });
    } else {
      return `${name} values are local date-times such as 20270305T180000 (or dates such as 20270305), not ${JSON.stringify(text.slice(0, 40))}`;
    }
  }
  return undefined;
}
