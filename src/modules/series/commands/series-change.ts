import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, type FieldError } from '../../../foundation/errors/app-error';
import { inputErrors } from '../../../foundation/validation/validate-input';
import { canonicalTimeZone } from '../../event/event.queries';
import { SeriesScope, type SeriesChangeArguments } from '../series.inputs';
import { fromErrors, occurrenceSlugTakenError, scopeErrors, seriesSlugTakenError } from '../series.policy';
import { eventSlugsTaken, lockSeries, occurrencesOf, seriesBySlug, seriesSlugTaken, type OccurrenceRow } from '../series.repository';
import { firstStartText, type SeriesRow } from '../series-rows';
import { planSeriesChange, type Plan, type TemplateFields } from '../series-planner';
import { checkSchedule, splitRecurrence } from '../series-schedule';
import { recurrenceLines } from '../series-recurrence';
import { occurrenceSlugs } from '../series-slugs';
import { addCalendarYears, formatLocalDateTime, parseLocalDateTime } from '../series-time';
import { ticketTypesOf } from './series-template';
import { MAX_YEARS } from '../series-expansion';

/*
 * What previewSeriesChange and updateSeries share (D28): the arguments checked, the series and its
 * occurrences read (locked, for the update), the changed series worked out (for FOLLOWING: the earlier
 * part's new lines and the new series), its occurrences expanded and the plan made. The preview
 * answers it; the update applies it (update-series.ts).
 */

/** A change worked out: the series as read, the series after it, and the plan. */
export interface PlannedChange {
  series: SeriesRow;
  occurrences: OccurrenceRow[];
  /** The occurrences the change applies to (FOLLOWING: from `from` on). */
  affected: OccurrenceRow[];
  /** The series the plan's occurrences belong to afterwards: `series` changed (ALL), or the new one (FOLLOWING; its id not made yet). */
  next: SeriesRow;
  /** FOLLOWING: the earlier part's lines (its rule ending before `from`). */
  earlierRecurrence?: string[];
  plan: Plan;
}

/** The arguments' own rules (D4: every failing field), before anything is read. */
export function argumentErrors(args: SeriesChangeArguments): FieldError[] {
  return inputErrors(args.changes, scopeErrors(args.scope, args.from, args.newSlug, args.slug));
}

/**
 * The change of `args` planned on the series as it is now: `lock` takes the occurrences' and the
 * series' locks first (updateSeries), else nothing is locked (the preview). `at`: the clock both use.
 */
export async function planChange(em: EntityManager, organizationId: string, args: SeriesChangeArguments, at: Date, lock: boolean): Promise<PlannedChange> {
  const errors = argumentErrors(args);
  const failing = new Set(errors.map((error) => error.field.replace(/[.[].*$/, '')));
  const found = await seriesBySlug(em, organizationId, args.slug);
  if (!found) throw AppError.seriesNotFound(args.slug);
  const occurrences = await occurrencesOf(em, organizationId, found.id, lock);
  const series = lock ? await lockSeries(em, organizationId, found.id) : found;
  if (!series) throw AppError.seriesNotFound(args.slug);

  const following = args.scope === SeriesScope.FOLLOWING;
  const start = following ? occurrences.find((occurrence) => occurrence.slug === args.from) : undefined;
  if (following && args.from) errors.push(...fromErrors(start !== undefined));
  if (following && args.newSlug && !failing.has('newSlug') && (await seriesSlugTaken(em, organizationId, args.newSlug))) {
    errors.push(seriesSlugTakenError(args.newSlug, 'newSlug'));
  }
  const { changes } = args;
  const timezone = changes.timezone != null && !failing.has('timezone') ? canonicalTimeZone(changes.timezone) : series.timezone;
  let recurrence = changes.recurrence ?? series.recurrence;
  let earlierRecurrence: string[] | undefined;
  const storedFirst = parseLocalDateTime(series.firstStart)!;
  if (start && errors.length === 0) {
    const split = await splitRecurrence(series.recurrence, storedFirst, start.key, series.timezone, addCalendarYears(storedFirst, MAX_YEARS));
    earlierRecurrence = split.earlier;
    recurrence = changes.recurrence ?? split.later;
  }
  const firstStart = changes.firstStart ?? (start ? formatLocalDateTime(start.key) : series.firstStart);
  const durationMinutes = changes.durationMinutes ?? series.durationMinutes;
  const schedule = await checkSchedule({ timezone, firstStart, durationMinutes, recurrence }, at, { mustBeFuture: false, failing });
  errors.push(...schedule.errors);
  if (errors.length > 0 || !('occurrences' in schedule)) throw AppError.validation(errors);

  const template: TemplateFields = {
    title: changes.title ?? series.title,
    description: changes.description !== undefined ? changes.description : series.description,
    venue: changes.venue !== undefined ? changes.venue : series.venue,
    venueAddress: changes.venueAddress !== undefined ? changes.venueAddress : series.venueAddress,
    coverImage: changes.coverImage !== undefined ? changes.coverImage : series.coverImage,
    capacity: changes.capacity !== undefined ? changes.capacity : series.capacity,
    timezone,
  };
  const next: SeriesRow = {
    ...series,
    ...template,
    slug: following ? args.newSlug! : series.slug,
    ticketTypes: changes.ticketTypes ? ticketTypesOf(changes.ticketTypes) : series.ticketTypes,
    firstStart: firstStartText(schedule.firstStart),
    durationMinutes,
    recurrence: recurrenceLines(recurrence),
  };
  const affected = start ? occurrences.filter((occurrence) => occurrence.key >= start.key) : occurrences;
  const plan = await planAroundSlugs(em, organizationId, {
    seriesSlug: next.slug,
    template,
    desired: schedule.occurrences,
    existing: affected,
    now: at.getTime(),
    moveBooked: args.moveBooked,
  });
  return { series, occurrences, affected, next, earlierRecurrence, plan };
}

/**
 * The plan, its new and moved occurrences named around the organization's other events: planned once,
 * the slugs it could give looked up, and planned again when some are taken. A date whose slugs are
 * both taken is refused (400 on `slug`), in the preview and the update alike.
 */
async function planAroundSlugs(em: EntityManager, organizationId: string, input: Parameters<typeof planSeriesChange>[0]): Promise<Plan> {
  const first = planSeriesChange(input);
  const keys = [...first.create.map((entry) => entry.key), ...first.move.map((entry) => entry.key)];
  const candidates = keys.flatMap((key) => occurrenceSlugs(input.seriesSlug, key));
  const taken = await eventSlugsTaken(em, organizationId, candidates, input.existing.map((occurrence) => occurrence.id));
  if (taken.size === 0) return first;
  const plan = planSeriesChange({ ...input, takenSlugs: taken });
  const named = [...plan.create.map((entry) => entry.slug), ...plan.move.map((entry) => entry.toSlug)];
  const clashes = named.filter((slug, index) => taken.has(slug) || named.indexOf(slug) !== index);
  if (clashes.length > 0) throw AppError.validation([occurrenceSlugTakenError(clashes)]);
  return plan;
}
