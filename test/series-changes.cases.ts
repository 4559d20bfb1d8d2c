import { createTenant } from './helpers/factories';
import { DOORS, eventApi, expectError, expectValidationError, type Door, type EventApi } from './helpers/event-api';
import { moveIntoPast } from './helpers/event-rows';
import { planLines, seriesApi, seriesInput, type SeriesApi } from './helpers/series';
import { useTestApp } from './helpers/use-test-app';

// D28: previewSeriesChange and updateSeries: every kind of plan entry and its reason, the preview equal
// to what the update does, stale versions, splits, detached and started dates, deleted dates.
const ctx = useTestApp();

const DATES = ['2027-03-02', '2027-03-09', '2027-03-16', '2027-03-23', '2027-03-30', '2027-04-06'];

describe.each(DOORS)('series changes through %s', (door: Door) => {
  let api: SeriesApi;
  let events: EventApi;
  let key: string;
  beforeAll(async () => {
    const tenant = await createTenant(ctx.app.orm);
    key = tenant.key;
    api = seriesApi(ctx.app.client, key, door);
    events = eventApi(ctx.app.client, key, door);
  });

  async function newSeries(overrides: Record<string, unknown> = {}): Promise<{ slug: string; slugs: string[]; id: string }> {
    const input = seriesInput(overrides);
    const created = await api.create(input);
    expect(created.error).toBeUndefined();
    const slug = input.slug as string;
    return { slug, id: created.data.id, slugs: DATES.map((date) => `${slug}-${date}`) };
  }

  const occurrencesOf = async (slug: string) => (await api.occurrences(slug)).data.events as any[];

  /** Publishes an occurrence and books a seat on it (through REST: bookings have their own door tests). */
  async function book(eventSlug: string): Promise<string> {
    expect((await events.update(eventSlug, { status: 'PUBLISHED' })).error).toBeUndefined();
    const booked = await ctx.app.client.rest('POST', `/v1/events/${eventSlug}/bookings`, key, { quantity: 1, attendeeEmail: 'ada@example.com', attendeeName: 'Ada' });
    expect(booked.status).toBe(201);
    return booked.body.id;
  }

  test('a template change updates every occurrence; the update does what the preview showed; the same change again plans nothing', async () => {
    const series = await newSeries();
    const args = { changes: { title: 'Yoga flow', venue: 'Hall B', capacity: 25 } };
    const preview = await api.preview(series.slug, args);
    expect(preview.data.version).toBe(1);
    expect(planLines(preview.data)).toEqual(series.slugs.map((slug) => `update ${slug}`).sort());
    expect([...preview.data.update[0].fields].sort()).toEqual(['capacity', 'title', 'venue']);
    // The preview changed nothing.
    expect((await occurrencesOf(series.slug)).every((event) => event.title === 'Yoga')).toBe(true);
    const updated = await api.update(series.slug, { ...args, expectedVersion: preview.data.version });
    expect(updated.error).toBeUndefined();
    expect(updated.data).toMatchObject({ slug: series.slug, title: 'Yoga flow', venue: 'Hall B', capacity: 25, version: 2 });
    expect(updated.data.plan).toEqual(preview.data);
    expect((await occurrencesOf(series.slug)).map((event) => [event.title, event.capacity])).toEqual(DATES.map(() => ['Yoga flow', 25]));
    const again = await api.preview(series.slug, args);
    expect(planLines(again.data)).toEqual([]);
    expect(again.data.version).toBe(2);
  });

  test('"move all future dates by an hour": moves (same events, from and to in UTC), local time kept', async () => {
    const series = await newSeries();
    const before = await occurrencesOf(series.slug);
    const { preview, updated } = await api.change(series.slug, { changes: { firstStart: '2027-03-02T19:00' } });
    expect(planLines(preview.data)).toEqual(series.slugs.map((slug) => `move ${slug} -> ${slug}`).sort());
    const first = preview.data.move.find((entry: any) => entry.slug === series.slugs[0]);
    expect(first).toMatchObject({ eventId: before[0].id, from: '2027-03-02T17:00:00.000Z', to: '2027-03-02T18:00:00.000Z', localStart: '2027-03-02T19:00', booked: false });
    expect(updated.data.plan).toEqual(preview.data);
    const after = await occurrencesOf(series.slug);
    expect(after.map((event) => event.id)).toEqual(before.map((event) => event.id));
    expect(after.map((event) => new Date(event.startDate).getTime() - new Date(before[after.indexOf(event)].startDate).getTime())).toEqual(DATES.map(() => 3_600_000));
    expect(planLines((await api.preview(series.slug, { changes: { firstStart: '2027-03-02T19:00' } })).data)).toEqual([]);
  });

  test('a move to another date renames the occurrence after its new local date; a new timezone keeps local times', async () => {
    const series = await newSeries();
    const { preview } = await api.change(series.slug, { changes: { recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=WE;COUNT=6'], firstStart: '2027-03-03T18:00' } });
    expect(preview.data.move.map((entry: any) => entry.toSlug)).toEqual(['2027-03-03', '2027-03-10', '2027-03-17', '2027-03-24', '2027-03-31', '2027-04-07'].map((date) => `${series.slug}-${date}`));
    expect((await events.get(`${series.slug}-2027-03-03`)).data.series.slug).toBe(series.slug);
    expectError(await events.get(series.slugs[0]), door, 'EVENT_NOT_FOUND', 404);

    const zoned = await newSeries();
    const { preview: moved } = await api.change(zoned.slug, { changes: { timezone: 'America/New_York' } });
    expect(moved.data.move).toHaveLength(6);
    expect(moved.data.move.every((entry: any) => entry.localStart.endsWith('T18:00') && entry.toSlug === entry.slug)).toBe(true);
    expect((await occurrencesOf(zoned.slug)).every((event) => event.timezone === 'America/New_York')).toBe(true);
  });

  test('"cancel one date": an EXDATE deletes exactly that occurrence; a longer rule creates, a shorter one deletes', async () => {
    const series = await newSeries();
    const { preview } = await api.change(series.slug, { changes: { recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=6', 'EXDATE:20270316T180000'] } });
    expect(planLines(preview.data)).toEqual([`delete ${series.slugs[2]}`]);
    expectError(await events.get(series.slugs[2]), door, 'EVENT_NOT_FOUND', 404);
    const longer = await api.change(series.slug, { changes: { recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=8', 'EXDATE:20270316T180000'] } });
    expect(planLines(longer.preview.data)).toEqual([`create ${series.slug}-2027-04-13`, `create ${series.slug}-2027-04-20`]);
    expect((await events.get(`${series.slug}-2027-04-20`)).data).toMatchObject({ status: 'DRAFT', title: 'Yoga', ticketTypes: [expect.objectContaining({ name: 'Drop-in' })] });
    const shorter = await api.change(series.slug, { changes: { recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=3'] } });
    // The date asked for again (03-16) is the nearest one left over, moved there; the rest are deleted.
    expect(planLines(shorter.preview.data)).toEqual(
      [`move ${series.slugs[3]} -> ${series.slugs[2]}`, ...series.slugs.slice(4).map((slug) => `delete ${slug}`), `delete ${series.slug}-2027-04-13`, `delete ${series.slug}-2027-04-20`].sort(),
    );
    expect((await occurrencesOf(series.slug)).map((event) => event.slug)).toEqual(series.slugs.slice(0, 3));
  });

  test('"cancel one date" by its status, and publishing, do not detach it: series changes still reach it', async () => {
    const series = await newSeries();
    expect((await events.update(series.slugs[1], { status: 'CANCELLED' })).error).toBeUndefined();
    expect((await events.update(series.slugs[2], { status: 'PUBLISHED' })).error).toBeUndefined();
    const { preview } = await api.change(series.slug, { changes: { description: 'New description' } });
    expect(planLines(preview.data)).toEqual(series.slugs.map((slug) => `update ${slug}`).sort());
    expect((await events.get(series.slugs[1])).data).toMatchObject({ status: 'CANCELLED', description: 'New description' });
  });

  test('an occurrence edited on its own is detached: skipped (DETACHED), its own values kept', async () => {
    const series = await newSeries();
    expect((await events.update(series.slugs[1], { title: 'Special guest' })).error).toBeUndefined();
    expect((await api.get(series.slug)).data.version).toBe(2);
    const { preview } = await api.change(series.slug, { changes: { title: 'Yoga flow', firstStart: '2027-03-02T17:00' } });
    expect(preview.data.skip).toEqual([expect.objectContaining({ slug: series.slugs[1], reason: 'DETACHED' })]);
    expect(preview.data.move).toHaveLength(5);
    expect(preview.data.create).toEqual([]);
    expect((await events.get(series.slugs[1])).data).toMatchObject({ title: 'Special guest', startDate: '2027-03-09T17:00:00.000Z' });
  });

  test('a date with bookings: kept at its time without moveBooked (HAS_BOOKINGS, nothing made beside it); moved with it; never deleted', async () => {
    const series = await newSeries();
    const booking = await book(series.slugs[2]);
    const shift = { changes: { firstStart: '2027-03-02T20:00' } };
    const kept = await api.preview(series.slug, shift);
    expect(kept.data.skip).toEqual([expect.objectContaining({ slug: series.slugs[2], reason: 'HAS_BOOKINGS' })]);
    expect(kept.data.move).toHaveLength(5);
    expect(kept.data.create).toEqual([]);
    const moved = await api.preview(series.slug, { ...shift, moveBooked: true });
    expect(moved.data.skip).toEqual([]);
    expect(moved.data.move.find((entry: any) => entry.slug === series.slugs[2])).toMatchObject({ booked: true, localStart: '2027-03-16T20:00' });
    const updated = await api.update(series.slug, { ...shift, moveBooked: true, expectedVersion: moved.data.version });
    expect(updated.data.plan).toEqual(moved.data);
    // The booking stays with its event, at the new time.
    const stored = await ctx.app.client.rest('GET', `/v1/bookings/${booking}`, key);
    expect(stored.body).toMatchObject({ eventSlug: series.slugs[2], status: 'CONFIRMED' });
    expect((await events.get(series.slugs[2])).data).toMatchObject({ startDate: '2027-03-16T19:00:00.000Z', registrationCount: 1 });
    // A rule that no longer has the booked date keeps it (HAS_BOOKINGS), and deletes the others.
    const shorter = await api.preview(series.slug, { changes: { recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=2'] }, moveBooked: true });
    expect(planLines(shorter.data)).toEqual([...series.slugs.slice(3).map((slug) => `delete ${slug}`), `skip ${series.slugs[2]} HAS_BOOKINGS`].sort());
  });

  test('a date that has started is skipped (STARTED)', async () => {
    const series = await newSeries();
    const [first] = await occurrencesOf(series.slug);
    await moveIntoPast(ctx.app.orm, first.id);
    const { preview } = await api.change(series.slug, { changes: { title: 'Later title' } });
    expect(preview.data.skip).toEqual([expect.objectContaining({ slug: series.slugs[0], reason: 'STARTED' })]);
    expect(preview.data.update).toHaveLength(5);
    expect((await events.get(series.slugs[0])).data.title).toBe('Yoga');
  });

  test('a stale expectedVersion is 409 SERIES_CHANGED and changes nothing; a booking since the preview makes it stale too', async () => {
    const series = await newSeries();
    const args = { changes: { title: 'First' } };
    expect((await api.change(series.slug, args)).updated.data.version).toBe(2);
    const stale = await api.update(series.slug, { changes: { title: 'Second' }, expectedVersion: 1 });
    expectError(stale, door, 'SERIES_CHANGED', 409, { expectedVersion: 1, version: 2 });
    expect((await api.get(series.slug)).data).toMatchObject({ title: 'First', version: 2 });
    expect((await occurrencesOf(series.slug)).every((event) => event.title === 'First')).toBe(true);

    // A date planned to be deleted gets its first booking after the preview: the plan would differ.
    const shorter = { changes: { recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=5'] } };
    const preview = await api.preview(series.slug, shorter);
    expect(planLines(preview.data)).toEqual([`delete ${series.slugs[5]}`]);
    await book(series.slugs[5]);
    const refused = await api.update(series.slug, { ...shorter, expectedVersion: preview.data.version });
    expectError(refused, door, 'SERIES_CHANGED', 409);
    expect((await events.get(series.slugs[5])).data.registrationCount).toBe(1);
    expect(planLines((await api.preview(series.slug, shorter)).data)).toEqual([`skip ${series.slugs[5]} HAS_BOOKINGS`]);
  });

  test('FOLLOWING splits the series at `from`: the later occurrences become the new series, the change applies to them only', async () => {
    const series = await newSeries();
    const newSlug = `${series.slug}-later`;
    const args = { scope: 'FOLLOWING' as const, from: series.slugs[3], newSlug, changes: { title: 'Yoga II', firstStart: '2027-03-23T19:00' } };
    const preview = await api.preview(series.slug, args);
    expect(planLines(preview.data)).toEqual(series.slugs.slice(3).map((slug) => `move ${slug} -> ${slug}`).sort());
    const updated = await api.update(series.slug, { ...args, expectedVersion: preview.data.version });
    expect(updated.error).toBeUndefined();
    expect(updated.data).toMatchObject({ slug: series.slug, title: 'Yoga', version: 2, occurrenceCount: 3, recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270323T165959Z'] });
    expect(updated.data.newSeries).toMatchObject({ slug: newSlug, title: 'Yoga II', version: 1, occurrenceCount: 3, firstStart: '2027-03-23T19:00' });
    // The rule's dates left from `from` on: all of them, at the new time too.
    expect(updated.data.newSeries.recurrence).toEqual(['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=3']);
    expect((await occurrencesOf(series.slug)).map((event) => [event.slug, event.title])).toEqual(series.slugs.slice(0, 3).map((slug) => [slug, 'Yoga']));
    const later = await occurrencesOf(newSlug);
    expect(later.map((event) => [event.slug, event.title, event.series.slug])).toEqual(series.slugs.slice(3).map((slug) => [slug, 'Yoga II', newSlug]));
    expect(later.map((event) => event.startDate)).toEqual(['2027-03-23T18:00:00.000Z', '2027-03-30T17:00:00.000Z', '2027-04-06T17:00:00.000Z']);
    // Neither part plans anything more for what was applied.
    expect(planLines((await api.preview(newSlug, { changes: { title: 'Yoga II', firstStart: '2027-03-23T19:00' } })).data)).toEqual([]);
    expect(planLines((await api.preview(series.slug, {})).data)).toEqual([]);
  });

  test('FOLLOWING needs an occurrence of the series as `from` and a free, well-formed `newSlug`', async () => {
    const series = await newSeries();
    const other = await newSeries();
    expectValidationError(await api.preview(series.slug, { scope: 'FOLLOWING' }), door, ['from', 'newSlug']);
    expectValidationError(await api.preview(series.slug, { scope: 'FOLLOWING', from: other.slugs[1], newSlug: `${series.slug}-b` }), door, ['from']);
    expectValidationError(await api.preview(series.slug, { scope: 'FOLLOWING', from: series.slugs[1], newSlug: other.slug }), door, ['newSlug']);
    expectValidationError(await api.update(series.slug, { scope: 'FOLLOWING', from: series.slugs[1], newSlug: 'Not A Slug', expectedVersion: 1 }), door, ['newSlug']);
  });

  test('changes are checked as createSeries checks them, every field at once', async () => {
    const series = await newSeries();
    expectValidationError(
      await api.preview(series.slug, { changes: { title: '', durationMinutes: 0, recurrence: ['RRULE:FREQ=DAILY'] } }),
      door,
      ['title', 'durationMinutes', 'recurrence'],
    );
    expectValidationError(await api.preview(series.slug, { changes: { recurrence: ['RRULE:FREQ=DAILY;COUNT=1200'] } }), door, ['recurrence']);
    expectValidationError(await api.update(series.slug, { changes: { timezone: 'Nowhere/Land' }, expectedVersion: 1 }), door, ['timezone']);
    expectError(await api.preview('no-such-series', {}), door, 'SERIES_NOT_FOUND', 404, { slug: 'no-such-series' });
  });

  test('an occurrence deleted on its own stays deleted: its date becomes an EXDATE of the series', async () => {
    const series = await newSeries();
    expect((await events.delete(series.slugs[1])).error).toBeUndefined();
    const stored = (await api.get(series.slug)).data;
    expect(stored).toMatchObject({ version: 2, occurrenceCount: 5 });
    expect(stored.recurrence).toEqual(['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=6', 'EXDATE:20270309T180000']);
    const { preview } = await api.change(series.slug, { changes: { title: 'Renamed' } });
    expect(planLines(preview.data)).toEqual(series.slugs.filter((_, index) => index !== 1).map((slug) => `update ${slug}`).sort());
  });
});
