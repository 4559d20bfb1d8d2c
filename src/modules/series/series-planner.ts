import type { Expanded } from './series-expansion';
import { alignOccurrences } from './series-alignment';
import { assignSlugs } from './series-slugs';
import { localDate, type Floating } from './series-time';

/*
 * The plan of a series change (D28): pure functions of the occurrences as they are and the
 * occurrences the changed series asks for. previewSeriesChange answers it; updateSeries computes it
 * again under its locks and applies exactly it.
 *
 * Pairing: an occurrence whose local start (its key) the changed series still has stays that
 * occurrence; the others are paired in order (series-alignment.ts), so a changed time, day or
 * timezone moves each date (same event, its slug following its new local date) instead of deleting
 * and creating it. What cannot change is skipped with its reason and nothing is created beside it:
 * a date that has started (STARTED), one edited on its own (DETACHED), one with confirmed bookings
 * that would move without `moveBooked` or would be deleted (HAS_BOOKINGS). A plan never deletes a
 * date with bookings, and moves one only with `moveBooked`.
 */

/** What every occurrence takes from its series (the event's fields of the template, and its timezone). */
export interface TemplateFields {
  title: string;
  description: string | null;
  venue: string | null;
  venueAddress: string | null;
  coverImage: string | null;
  capacity: number | null;
  timezone: string;
}

export const TEMPLATE_FIELDS = ['title', 'description', 'venue', 'venueAddress', 'coverImage', 'capacity', 'timezone'] as const;
export type TemplateField = (typeof TEMPLATE_FIELDS)[number];
/** The fields an update or a move entry changes: the template's and the schedule's. */
export type ChangedField = TemplateField | 'startDate' | 'endDate' | 'slug';

/** An occurrence as it is. */
export interface Occurrence extends TemplateFields {
  id: string;
  slug: string;
  /** The local start the series made it for (the rule's date), kept when it is edited on its own. */
  key: Floating;
  start: number;
  end: number;
  /** Edited on its own (updateEvent beyond its status): series changes skip it. */
  detached: boolean;
  /** Has CONFIRMED bookings (the rule of deleting an event, D3). */
  booked: boolean;
  /** Seats taken (confirmed and held): a capacity may not go below them. */
  seatsTaken: number;
}

export type SkipReason = 'HAS_BOOKINGS' | 'DETACHED' | 'STARTED';

export interface PlanCreate {
  slug: string;
  key: Floating;
  start: number;
  end: number;
}
export interface PlanUpdate {
  eventId: string;
  slug: string;
  start: number;
  end: number;
  fields: ChangedField[];
}
export interface PlanMove {
  eventId: string;
  slug: string;
  toSlug: string;
  key: Floating;
  from: number;
  to: number;
  end: number;
  booked: boolean;
  fields: ChangedField[];
}
export interface PlanDelete {
  eventId: string;
  slug: string;
  start: number;
}
export interface PlanSkip {
  eventId: string;
  slug: string;
  start: number;
  reason: SkipReason;
}

export interface Plan {
  create: PlanCreate[];
  update: PlanUpdate[];
  move: PlanMove[];
  delete: PlanDelete[];
  skip: PlanSkip[];
}

export interface PlanInput {
  /** The slug occurrences made or moved by this plan are named after (the new series' for FOLLOWING). */
  seriesSlug: string;
  template: TemplateFields;
  /** The occurrences the changed series asks for, in order of their keys. */
  desired: readonly Expanded[];
  /** The occurrences the change applies to (FOLLOWING: from the `from` occurrence on). */
  existing: readonly Occurrence[];
  now: number;
  moveBooked: boolean;
  /** Slugs of the organization's other events (not in `existing`): never given to an occurrence. */
  takenSlugs?: ReadonlySet<string>;
}

/** Whether a plan does anything (skips only report what stays as it is). */
export const planActs = (plan: Plan): boolean =>
  plan.create.length + plan.update.length + plan.move.length + plan.delete.length > 0;

/** The template fields of `occurrence` that differ from `template` (capacity only where the seats taken allow it). */
function templateChanges(occurrence: Occurrence, template: TemplateFields): { fields: TemplateField[]; capacityRefused: boolean } {
  const fields = TEMPLATE_FIELDS.filter((field) => occurrence[field] !== template[field]);
  const capacityRefused = fields.includes('capacity') && template.capacity !== null && template.capacity < occurrence.seatsTaken;
  return { fields: capacityRefused ? fields.filter((field) => field !== 'capacity') : fields, capacityRefused };
}

/** The reason an occurrence cannot change at all, if any (a started one first, then a detached one). */
function frozen(occurrence: Occurrence, now: number): SkipReason | undefined {
  if (occurrence.start <= now) return 'STARTED';
  return occurrence.detached ? 'DETACHED' : undefined;
}

/** The plan of a change: what `desired` asks of `existing`. */
export function planSeriesChange(input: PlanInput): Plan {
  const { template, now, moveBooked } = input;
  const plan: Plan = { create: [], update: [], move: [], delete: [], skip: [] };
  const skip = (occurrence: Occurrence, reason: SkipReason) => plan.skip.push({ eventId: occurrence.id, slug: occurrence.slug, start: occurrence.start, reason });

  const { pairs, unpaired, unwanted } = alignOccurrences(input.existing, input.desired, now);
  const moving: Array<{ occurrence: Occurrence; target: Expanded; fields: ChangedField[] }> = [];
  for (const [occurrence, target] of pairs) {
    const { fields, capacityRefused } = templateChanges(occurrence, template);
    const moves = occurrence.start !== target.start;
    const ends = occurrence.end !== target.end;
    const reason = frozen(occurrence, now);
    if (reason) {
      if (moves || ends || fields.length > 0 || capacityRefused) skip(occurrence, reason);
      continue;
    }
    if (moves && occurrence.booked && !moveBooked) {
      // It keeps its time (and nothing is made beside it); the template still applies to it.
      skip(occurrence, 'HAS_BOOKINGS');
      if (fields.length > 0) plan.update.push({ eventId: occurrence.id, slug: occurrence.slug, start: occurrence.start, end: occurrence.end, fields });
      continue;
    }
    if (capacityRefused) skip(occurrence, 'HAS_BOOKINGS');
    if (moves) {
      moving.push({ occurrence, target, fields: [...fields, 'startDate', ...(occurrence.end !== target.end ? (['endDate'] as const) : [])] });
    } else if (ends || fields.length > 0) {
      plan.update.push({ eventId: occurrence.id, slug: occurrence.slug, start: occurrence.start, end: target.end, fields: [...fields, ...(ends ? (['endDate'] as const) : [])] });
    }
  }
  for (const occurrence of unwanted) {
    const reason = frozen(occurrence, now) ?? (occurrence.booked ? 'HAS_BOOKINGS' : undefined);
    if (reason) skip(occurrence, reason);
    else plan.delete.push({ eventId: occurrence.id, slug: occurrence.slug, start: occurrence.start });
  }

  // Slugs: occurrences that stay where they are keep theirs; moved and new ones are named after their new local date.
  const staying = input.existing.filter((occurrence) => !moving.some((move) => move.occurrence === occurrence) && !plan.delete.some((entry) => entry.eventId === occurrence.id));
  const slugs = assignSlugs(
    input.seriesSlug,
    [
      // "Its slug follows its new local date": kept while that date is the same (a new time, a new timezone).
      ...moving.map(({ occurrence, target }) => ({ key: target.key, current: localDate(occurrence.key) === localDate(target.key) ? occurrence.slug : undefined })),
      ...unpaired.map((target) => ({ key: target.key, current: undefined })),
    ],
    new Set([...staying.map((occurrence) => occurrence.slug), ...(input.takenSlugs ?? [])]),
  );
  moving.forEach(({ occurrence, target, fields }, index) => {
    const toSlug = slugs[index];
    plan.move.push({
      eventId: occurrence.id,
      slug: occurrence.slug,
      toSlug,
      key: target.key,
      from: occurrence.start,
      to: target.start,
      end: target.end,
      booked: occurrence.booked,
      fields: toSlug === occurrence.slug ? fields : [...fields, 'slug'],
    });
  });
  unpaired.forEach((target, index) => plan.create.push({ slug: slugs[moving.length + index], key: target.key, start: target.start, end: target.end }));
  for (const list of [plan.create, plan.update, plan.move, plan.delete, plan.skip] as Array<Array<{ start?: number; from?: number; slug: string }>>) {
    list.sort((a, b) => (a.start ?? a.from ?? 0) - (b.start ?? b.from ?? 0) || a.slug.localeCompare(b.slug));
  }
  return plan;
}
