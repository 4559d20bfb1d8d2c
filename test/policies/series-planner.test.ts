import fc from 'fast-check';
import type { Expanded } from '../../src/modules/series/series-expansion';
import { planActs, planSeriesChange, type Occurrence, type Plan, type PlanInput, type TemplateFields } from '../../src/modules/series/series-planner';
import { occurrenceSlugs } from '../../src/modules/series/series-slugs';

// D28: the planner as pure functions of the occurrences as they are and the ones a changed series asks
// for. Property tests: a plan applied, then the same change previewed again, plans nothing; no plan
// ever deletes a date with bookings, or moves one without moveBooked; detached and started dates are
// never changed; slugs stay unique.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const BASE = Date.UTC(2027, 2, 1);
const TEMPLATE: TemplateFields = { title: 'Yoga', description: null, venue: null, venueAddress: null, coverImage: null, capacity: null, timezone: 'UTC' };

/** A date of the grid: a day and one of three times; UTC, so a key is its start. */
const keyOf = (day: number, slot: number) => BASE + day * DAY + [9, 18, 20][slot] * HOUR;
const target = (key: number, minutes = 60): Expanded => ({ key, start: key, end: key + minutes * 60_000 });

let ids = 0;
function occurrence(key: number, fields: Partial<Occurrence> = {}): Occurrence {
  ids += 1;
  return {
    ...TEMPLATE,
    id: `evt_${ids}`,
    slug: occurrenceSlugs('s', key)[1],
    key,
    start: key,
    end: key + HOUR,
    detached: false,
    booked: false,
    seatsTaken: 0,
    ...fields,
  };
}

/** What the repositories do with a plan (series-changes.repository.ts), on the occurrences in memory. */
function applyPlan(existing: readonly Occurrence[], plan: Plan, template: TemplateFields): Occurrence[] {
  const deleted = new Set(plan.delete.map((entry) => entry.eventId));
  const moved = new Map(plan.move.map((entry) => [entry.eventId, entry]));
  const updated = new Map(plan.update.map((entry) => [entry.eventId, entry]));
  const templated = (occurrence: Occurrence, fields: readonly string[]): Occurrence => ({
    ...occurrence,
    ...template,
    capacity: fields.includes('capacity') ? template.capacity : occurrence.capacity,
  });
  const kept = existing
    .filter((occurrence) => !deleted.has(occurrence.id))
    .map((occurrence) => {
      const move = moved.get(occurrence.id);
      if (move) return { ...templated(occurrence, move.fields), key: move.key, start: move.to, end: move.end, slug: move.toSlug };
      const update = updated.get(occurrence.id);
      if (update) return { ...templated(occurrence, update.fields), end: update.end };
      return occurrence;
    });
  return [...kept, ...plan.create.map((entry) => occurrence(entry.key, { ...template, slug: entry.slug, start: entry.start, end: entry.end }))];
}

describe('plans of every kind', () => {
  const now = BASE;
  const plan = (existing: Occurrence[], desired: Expanded[], extra: Partial<PlanInput> = {}) =>
    planSeriesChange({ seriesSlug: 's', template: TEMPLATE, desired, existing, now, moveBooked: false, ...extra });

  test('nothing changed: nothing planned', () => {
    const keys = [keyOf(1, 1), keyOf(8, 1)];
    expect(planActs(plan(keys.map((key) => occurrence(key)), keys.map((key) => target(key))))).toBe(false);
  });

  test('a later time is a move of each date; a new date a create; a date left out a delete', () => {
    const existing = [occurrence(keyOf(1, 1)), occurrence(keyOf(8, 1)), occurrence(keyOf(15, 1))];
    const later = plan(existing, [keyOf(1, 2), keyOf(8, 2), keyOf(15, 2)].map((key) => target(key)));
    expect(later.move.map((entry) => [entry.eventId, entry.to - entry.from])).toEqual(existing.map((item) => [item.id, 2 * HOUR]));
    const longer = plan(existing, [keyOf(1, 1), keyOf(8, 1), keyOf(15, 1), keyOf(22, 1)].map((key) => target(key)));
    expect(longer.create.map((entry) => entry.key)).toEqual([keyOf(22, 1)]);
    const shorter = plan(existing, [keyOf(1, 1), keyOf(15, 1)].map((key) => target(key)));
    expect(shorter.delete.map((entry) => entry.eventId)).toEqual([existing[1].id]);
    expect(shorter.move).toEqual([]);
  });

  test('a longer duration is an update (endDate); a template change an update of its fields', () => {
    const existing = [occurrence(keyOf(1, 1))];
    expect(plan(existing, [target(keyOf(1, 1), 90)]).update[0].fields).toEqual(['endDate']);
    const renamed = planSeriesChange({ seriesSlug: 's', template: { ...TEMPLATE, title: 'Pilates' }, desired: [target(keyOf(1, 1))], existing, now, moveBooked: false });
    expect(renamed.update[0].fields).toEqual(['title']);
  });

  test('skips and their reasons: HAS_BOOKINGS (move without moveBooked, delete), DETACHED, STARTED; a capacity below the seats taken', () => {
    const booked = occurrence(keyOf(1, 1), { booked: true, seatsTaken: 5 });
    const detached = occurrence(keyOf(8, 1), { detached: true });
    const started = occurrence(keyOf(-1, 1));
    const later = plan([booked, detached, started], [keyOf(1, 2), keyOf(8, 2), keyOf(-1, 2)].map((key) => target(key)));
    expect(later.skip.map((entry) => [entry.eventId, entry.reason])).toEqual([
      [started.id, 'STARTED'],
      [booked.id, 'HAS_BOOKINGS'],
      [detached.id, 'DETACHED'],
    ]);
    expect(planActs(later)).toBe(false);
    const moveBooked = plan([booked], [target(keyOf(1, 2))], { moveBooked: true });
    expect(moveBooked.move).toEqual([expect.objectContaining({ eventId: booked.id, booked: true })]);
    const gone = plan([booked], [], { moveBooked: true });
    expect([gone.delete, gone.skip.map((entry) => entry.reason)]).toEqual([[], ['HAS_BOOKINGS']]);
    const smaller = planSeriesChange({ seriesSlug: 's', template: { ...TEMPLATE, capacity: 3, title: 'New' }, desired: [target(keyOf(1, 1))], existing: [booked], now, moveBooked: false });
    expect(smaller.skip.map((entry) => entry.reason)).toEqual(['HAS_BOOKINGS']);
    expect(smaller.update[0].fields).toEqual(['title']);
  });

  test('slugs: the first of a date gets the date, a second its time; a slug taken by another event is passed over', () => {
    const made = plan([], [target(keyOf(1, 0)), target(keyOf(1, 1))], { takenSlugs: new Set() });
    expect(made.create.map((entry) => entry.slug)).toEqual(['s-2027-03-02', 's-2027-03-02-1800']);
    const around = plan([], [target(keyOf(1, 0))], { takenSlugs: new Set(['s-2027-03-02']) });
    expect(around.create.map((entry) => entry.slug)).toEqual(['s-2027-03-02-0900']);
  });
});

describe('properties', () => {
  const grid = fc.record({ day: fc.integer({ min: -3, max: 40 }), slot: fc.integer({ min: 0, max: 2 }) });
  const existingArb = fc
    .uniqueArray(fc.record({ at: grid, booked: fc.boolean(), detached: fc.boolean(), title: fc.constantFrom('Yoga', 'Old') }), {
      selector: (item) => keyOf(item.at.day, item.at.slot),
      maxLength: 25,
    })
    .map((items) => items.map((item) => occurrence(keyOf(item.at.day, item.at.slot), { booked: item.booked, detached: item.detached, title: item.title })));
  const desiredArb = fc
    .uniqueArray(grid, { selector: (at) => keyOf(at.day, at.slot), maxLength: 25 })
    .chain((ats) => fc.integer({ min: 30, max: 120 }).map((minutes) => ats.map((at) => target(keyOf(at.day, at.slot), minutes))));
  const inputArb = fc.record({
    existing: existingArb,
    desired: desiredArb,
    moveBooked: fc.boolean(),
    title: fc.constantFrom('Yoga', 'New'),
    now: fc.integer({ min: -2, max: 10 }).map((days) => BASE + days * DAY),
  });
  const inputOf = ({ existing, desired, moveBooked, title, now }: { existing: Occurrence[]; desired: Expanded[]; moveBooked: boolean; title: string; now: number }): PlanInput => ({
    seriesSlug: 's',
    template: { ...TEMPLATE, title },
    desired: [...desired].sort((a, b) => a.key - b.key),
    existing,
    now,
    moveBooked,
  });

  test('applying a plan, then previewing the same change again, plans nothing', () => {
    fc.assert(
      fc.property(inputArb, (generated) => {
        const input = inputOf(generated);
        const first = planSeriesChange(input);
        const after = applyPlan(input.existing, first, input.template);
        const second = planSeriesChange({ ...input, existing: after });
        expect({ create: second.create, update: second.update, move: second.move, delete: second.delete }).toEqual({ create: [], update: [], move: [], delete: [] });
      }),
      { numRuns: 500 },
    );
  });

  test('no plan deletes a date with bookings or moves one without moveBooked; detached and started dates never change', () => {
    fc.assert(
      fc.property(inputArb, (generated) => {
        const input = inputOf(generated);
        const plan = planSeriesChange(input);
        const byId = new Map(input.existing.map((item) => [item.id, item]));
        for (const entry of plan.delete) expect(byId.get(entry.eventId)!.booked).toBe(false);
        for (const entry of plan.move) if (byId.get(entry.eventId)!.booked) expect(input.moveBooked).toBe(true);
        const frozen = input.existing.filter((item) => item.detached || item.start <= input.now).map((item) => item.id);
        for (const entry of [...plan.delete, ...plan.move, ...plan.update]) expect(frozen).not.toContain(entry.eventId);
        // Nothing made in the past, nothing made on a date an occurrence already is or stands for.
        for (const entry of plan.create) expect(entry.start).toBeGreaterThan(input.now);
        // Every occurrence at most once among the actions, and in a skip at most once.
        const acted = [...plan.delete, ...plan.move].map((entry) => entry.eventId);
        expect(new Set(acted).size).toBe(acted.length);
        expect(new Set(plan.skip.map((entry) => entry.eventId)).size).toBe(plan.skip.length);
        // Slugs stay unique among the occurrences after the plan.
        const slugs = applyPlan(input.existing, plan, input.template).map((item) => item.slug);
        expect(new Set(slugs).size).toBe(slugs.length);
      }),
      { numRuns: 500 },
    );
  });

  test('every desired future date is an occurrence afterwards, unless a skipped one stands for it', () => {
    fc.assert(
      fc.property(inputArb, (generated) => {
        const input = inputOf(generated);
        const plan = planSeriesChange(input);
        const after = applyPlan(input.existing, plan, input.template);
        const keys = new Set(after.map((item) => item.key));
        const missing = input.desired.filter((item) => item.start > input.now && !keys.has(item.key));
        // Each missing date is matched by a skipped occurrence (one per skip at most).
        expect(missing.length).toBeLessThanOrEqual(plan.skip.length);
      }),
      { numRuns: 300 },
    );
  });
});
