import { IANAZone } from 'luxon';

/*
 * Local wall-clock times of a series (D28) and the instants they name in its timezone. A local time
 * is "floating": milliseconds whose UTC fields are the local fields (2027-03-01T18:00 local is
 * Date.UTC(2027, 2, 1, 18, 0)). The rule is expanded on floating times, where no day has 23 or 25
 * hours, so an 18:00 class stays 18:00 local; each one is then mapped to its instant here. Pure.
 */

export type Floating = number;

const MINUTE = 60_000;
const DAY = 86_400_000;

/** `2027-03-01T18:00`, `2027-03-01T18:00:30` (a fraction of a second is dropped): a local date-time without offset. */
const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?$/;

/** A local date-time as a floating time, or undefined when it is not one (shape or calendar). */
export function parseLocalDateTime(text: string): Floating | undefined {
  const match = LOCAL_DATE_TIME.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => (part === undefined ? 0 : Number(part)));
  return floatingOf(year, month, day, hour, minute, second);
}

/** The floating time of these local fields, or undefined when they name no date-time (2027-02-30, 24:00). */
export function floatingOf(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): Floating | undefined {
  if (year < 1 || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const value = Date.UTC(year, month - 1, day, hour, minute, second);
  const date = new Date(value);
  return date.getUTCFullYear() === year && date.getUTCDate() === day && date.getUTCMonth() === month - 1 ? value : undefined;
}

/** `2027-03-01T18:00` (seconds only when not zero): how a series shows a local date-time. */
export function formatLocalDateTime(value: Floating): string {
  const text = new Date(value).toISOString();
  return text.slice(17, 19) === '00' ? text.slice(0, 16) : text.slice(0, 19);
}

/** `2027-03-01`: the local date of a floating time. */
export const localDate = (value: Floating): string => new Date(value).toISOString().slice(0, 10);

/** `1800`, or `180030` when the seconds are not zero: the local time of day in an occurrence's slug. */
export function localTimeLabel(value: Floating): string {
  const text = new Date(value).toISOString();
  const label = `${text.slice(11, 13)}${text.slice(14, 16)}`;
  return text.slice(17, 19) === '00' ? label : `${label}${text.slice(17, 19)}`;
}

/** `20270301T180000`: a floating time as an RFC 5545 local DATE-TIME value. */
export const icalLocal = (value: Floating): string => new Date(value).toISOString().slice(0, 19).replace(/[-:]/g, '');

/** `20270301T170000Z`: an instant as an RFC 5545 UTC DATE-TIME value. */
export const icalUtc = (instant: number): string => `${icalLocal(instant)}Z`;

/** The calendar date `years` later (29 February becomes the 28th in a year without it), same time of day. */
export function addCalendarYears(value: Floating, years: number): Floating {
  const date = new Date(value);
  const target = new Date(value);
  target.setUTCFullYear(date.getUTCFullYear() + years, date.getUTCMonth(), 1);
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(date.getUTCDate(), lastDay));
  return target.getTime();
}

/** Whether the runtime (through luxon) knows this IANA zone. */
export const isKnownZone = (name: string): boolean => IANAZone.isValidZone(name);

/** The zone's offset from UTC at an instant, in minutes. */
const offsetAt = (zone: IANAZone, instant: number): number => zone.offset(instant);

/**
 * The instant a local time names in `timeZone`, as RFC 5545 (3.3.5) reads a DATE-TIME with a TZID:
 * a time that occurs twice (the autumn change) is the first of the two (daylight time); a time that
 * does not occur (the spring change) is read with the offset before the gap, so 02:30 on the day
 * New York moves from 02:00 to 03:00 is 03:30 daylight time (07:30Z). Offsets are read a day before
 * and after: no zone changes twice within two days.
 */
export function instantOf(local: Floating, timeZone: string): number {
  const zone = IANAZone.create(timeZone);
  const before = offsetAt(zone, local - DAY);
  const after = offsetAt(zone, local + DAY);
  const candidates = [...new Set([before, after])]
    .map((offset) => local - offset * MINUTE)
    .filter((instant) => offsetAt(zone, instant) * MINUTE === local - instant);
  return candidates.length === 0 ? local - before * MINUTE : Math.min(...candidates);
}

/** The local time of an instant in `timeZone`. */
export function localOf(instant: number, timeZone: string): Floating {
  return instant + offsetAt(IANAZone.create(timeZone), instant) * MINUTE;
}
