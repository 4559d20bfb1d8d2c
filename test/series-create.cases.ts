import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { createApiKey, createTenant, eventInput } from './helpers/factories';
import { DOORS, eventApi, expectError, expectValidationError, failingFields, type Door } from './helpers/event-api';
import { seriesApi, seriesInput, type SeriesApi } from './helpers/series';
import { useTestApp } from './helpers/use-test-app';

// D28: createSeries / POST /v1/series, the occurrences it makes, its rules and limits, and its reads.
const ctx = useTestApp();

const localTimes = (events: any[], timeZone: string) =>
  events.map((event) => new Date(event.startDate).toLocaleString('sv-SE', { timeZone, hour12: false }).slice(0, 16));

describe.each(DOORS)('createSeries through %s', (door: Door) => {
  let api: SeriesApi;
  let key: string;
  let organizationId: string;
  beforeAll(async () => {
    const tenant = await createTenant(ctx.app.orm);
    key = tenant.key;
    organizationId = tenant.organization.id;
    api = seriesApi(ctx.app.client, key, door);
  });

  test('makes the series and every occurrence: events in DRAFT with the template and their own ticket types', async () => {
    const input = seriesInput({ venue: 'Studio 2', description: 'Bring a mat' });
    const created = await api.create(input);
    expect(created.error).toBeUndefined();
    if (door === 'rest') {
      expect(created.status).toBe(201);
      expect(created.headers.location).toBe(`/v1/series/${input.slug}`);
    }
    expect(created.data).toMatchObject({
      id: expect.stringMatching(/^ser_[A-Za-z0-9]+$/),
      slug: input.slug,
      title: 'Yoga',
      venue: 'Studio 2',
      timezone: 'Europe/Berlin',
      firstStart: '2027-03-02T18:00',
      durationMinutes: 60,
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=6'],
      version: 1,
      occurrenceCount: 6,
      organizationId,
      ticketTypes: [{ name: 'Drop-in', price: 12, currency: 'EUR', quantity: 20 }],
    });
    const occurrences = await api.occurrences(input.slug as string);
    expect(occurrences.data.total).toBe(6);
    expect(occurrences.data.events.map((event: any) => event.slug)).toEqual(
      ['2027-03-02', '2027-03-09', '2027-03-16', '2027-03-23', '2027-03-30', '2027-04-06'].map((date) => `${input.slug}-${date}`),
    );
    for (const event of occurrences.data.events) {
      expect(event).toMatchObject({ title: 'Yoga', status: 'DRAFT', timezone: 'Europe/Berlin', capacity: 20, series: { id: created.data.id, slug: input.slug } });
      expect(new Date(event.endDate).getTime() - new Date(event.startDate).getTime()).toBe(3_600_000);
    }
    // Every occurrence is an event: read through the events routes, with its own ticket types.
    const events = eventApi(ctx.app.client, key, door);
    const first = await events.get(`${input.slug}-2027-03-02`);
    expect(first.data).toMatchObject({ venue: 'Studio 2', description: 'Bring a mat', series: { id: created.data.id, slug: input.slug } });
    expect(first.data.ticketTypes).toEqual([{ id: expect.stringMatching(/^tt_/), name: 'Drop-in', price: 12, currency: 'EUR', quantity: 20, sold: 0, held: 0 }]);
    const second = await events.get(`${input.slug}-2027-03-09`);
    expect(second.data.ticketTypes[0].id).not.toBe(first.data.ticketTypes[0].id);
    // The events list filters by series; its total stays exact (D25).
    const listed = await events.list({ series: input.slug as string, limit: 100 });
    expect(listed.data.total).toBe(6);
    expect(listed.data.events.every((event: any) => event.series?.slug === input.slug)).toBe(true);
  });

  test('an 18:00 class stays at 18:00 local across the daylight-saving changes (Europe/Berlin, America/New_York)', async () => {
    for (const [timezone, firstStart, until] of [
      ['Europe/Berlin', '2027-03-21T18:00', '20271108T000000Z'],
      ['America/New_York', '2027-03-07T18:00', '20271115T000000Z'],
    ]) {
      const input = seriesInput({ timezone, firstStart, recurrence: [`RRULE:FREQ=WEEKLY;BYDAY=SU;UNTIL=${until}`] });
      expect((await api.create(input)).error).toBeUndefined();
      const events = (await api.occurrences(input.slug as string)).data.events;
      expect(new Set(localTimes(events, timezone).map((local) => local.slice(11)))).toEqual(new Set(['18:00']));
      // Both changes are crossed: two UTC offsets among the starts.
      const hours = new Set(events.map((event: any) => new Date(event.startDate).getUTCHours()));
      expect(hours.size).toBe(2);
    }
  });

  test('a second occurrence on the same local date gets -HHMM', async () => {
    const input = seriesInput({ recurrence: ['RRULE:FREQ=DAILY;BYHOUR=10,18;COUNT=4'], firstStart: '2027-05-03T10:00' });
    expect((await api.create(input)).error).toBeUndefined();
    const slugs = (await api.occurrences(input.slug as string)).data.events.map((event: any) => event.slug);
    expect(slugs).toEqual([`${input.slug}-2027-05-03`, `${input.slug}-2027-05-03-1800`, `${input.slug}-2027-05-04`, `${input.slug}-2027-05-04-1800`]);
  });

  test('RDATE adds and EXDATE removes local dates; UNTIL is UTC and inclusive', async () => {
    const input = seriesInput({
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270323T170000Z', 'RDATE:20270305T180000', 'EXDATE:20270316T180000'],
    });
    expect((await api.create(input)).error).toBeUndefined();
    const slugs = (await api.occurrences(input.slug as string)).data.events.map((event: any) => event.slug.slice(-10));
    expect(slugs).toEqual(['2027-03-02', '2027-03-05', '2027-03-09', '2027-03-23']);
  });

  test('the limits are a 400 on recurrence, saying which', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['RRULE:FREQ=WEEKLY;BYDAY=TU'], /must end/],
      [['RRULE:FREQ=DAILY;COUNT=1001'], /more than 1,000 occurrences/],
      [['RRULE:FREQ=DAILY;COUNT=1000', 'RDATE:20300101T180000'], /more than 1,000 occurrences/],
      [['RRULE:FREQ=MONTHLY;COUNT=40'], /more than 3 years after firstStart/],
      [['RRULE:FREQ=WEEKLY;COUNT=2', 'RDATE:20300303T180000'], /more than 3 years after firstStart/],
    ];
    for (const [recurrence, message] of cases) {
      const outcome = await api.create(seriesInput({ recurrence }));
      expectValidationError(outcome, door, ['recurrence']);
      expect(outcome.error!.details.errors[0].message).toMatch(message);
    }
    // Exactly at the limits: 1,000 occurrences, the last one 3 calendar years after firstStart.
    expect((await api.create(seriesInput({ recurrence: ['RRULE:FREQ=DAILY;COUNT=1000'] }))).error).toBeUndefined();
    expect((await api.create(seriesInput({ recurrence: ['RRULE:FREQ=YEARLY;COUNT=4'] }))).error).toBeUndefined();
  });

  test('every failing field at once (D4): malformed lines, unknown timezone, firstStart in the past, durationMinutes, title', async () => {
    const outcome = await api.create(
      seriesInput({ title: ' ', timezone: 'Mars/Olympus', firstStart: '2027-02-30T18:00', durationMinutes: 10_081, recurrence: ['RRULE:FREQ=SOMETIMES', 'DTSTART:20270101T000000'] }),
    );
    expectValidationError(outcome, door, ['title', 'timezone', 'firstStart', 'durationMinutes', 'recurrence']);
    expectValidationError(await api.create(seriesInput({ firstStart: '2025-01-07T18:00' })), door, ['firstStart']);
    expectValidationError(await api.create(seriesInput({ firstStart: '2027-03-02T18:00+01:00' })), door, ['firstStart']);
    expectValidationError(await api.create(seriesInput({ durationMinutes: 0 })), door, ['durationMinutes']);
    for (const line of ['RRULE:FREQ=WEEKLY;COUNT=abc', 'RRULE:FREQ=WEEKLY;BYDAY=XX;COUNT=2', 'RRULE:COUNT=3', 'RRULE:FREQ=WEEKLY;COUNT=2;UNTIL=20270601T000000Z', 'RRULE:FREQ=WEEKLY;UNTIL=20270601', 'RDATE:yesterday', 'nonsense']) {
      const refused = await api.create(seriesInput({ recurrence: [line] }));
      expect([line, failingFields(refused)]).toEqual([line, ['recurrence']]);
    }
    expectValidationError(await api.create(seriesInput({ recurrence: [] })), door, ['recurrence']);
  });

  test('hostile recurrences are refused quickly, never a 500: rules that never match, huge lists, long lines', async () => {
    const started = Date.now();
    const never = await api.create(seriesInput({ recurrence: ['RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30;COUNT=3'] }));
    // Only firstStart is left (the rule adds nothing): a series of one, or refused; never a hang or a 500.
    expect([200, 201, 400]).toContain(never.status);
    expect(Date.now() - started).toBeLessThan(10_000);
    expectValidationError(await api.create(seriesInput({ recurrence: Array.from({ length: 2_001 }, () => 'EXDATE:20270309T180000') })), door, ['recurrence']);
    expectValidationError(await api.create(seriesInput({ recurrence: [`RRULE:FREQ=WEEKLY;COUNT=2;X-${'A'.repeat(30_000)}=1`] })), door, ['recurrence']);
    expectValidationError(await api.create(seriesInput({ recurrence: [`RRULE:FREQ=WEEKLY;BYHOUR=${Array.from({ length: 400 }, () => '1').join(',')};COUNT=2`] })), door, ['recurrence']);
  });

  test('a taken series slug is a 400 on slug; an occurrence slug taken by another event too', async () => {
    const input = seriesInput();
    expect((await api.create(input)).error).toBeUndefined();
    const again = await api.create({ ...input, firstStart: '2027-06-01T18:00' });
    expectValidationError(again, door, ['slug']);
    expect(again.error!.details.errors[0].message).toMatch(/another series/);
    // An event of the organization already has the first occurrence's slug.
    const other = seriesInput();
    const event = await eventApi(ctx.app.client, key, door).create(eventInput({ slug: `${other.slug}-2027-03-02` }));
    expect(event.error).toBeUndefined();
    const clash = await api.create(other);
    // Its time is added instead: the date's slug is taken, its -HHMM is free.
    expect(clash.error).toBeUndefined();
    const slugs = (await api.occurrences(other.slug as string)).data.events.map((item: any) => item.slug);
    expect(slugs[0]).toBe(`${other.slug}-2027-03-02-1800`);
  });

  test('another organization\'s series is not found (404 SERIES_NOT_FOUND), and not listed', async () => {
    const input = seriesInput();
    expect((await api.create(input)).error).toBeUndefined();
    const stranger = await createTenant(ctx.app.orm);
    const theirs = seriesApi(ctx.app.client, stranger.key, door);
    expectError(await theirs.get(input.slug as string), door, 'SERIES_NOT_FOUND', 404, { slug: input.slug });
    expectError(await theirs.occurrences(input.slug as string), door, 'SERIES_NOT_FOUND', 404, { slug: input.slug });
    expectError(await theirs.preview(input.slug as string, { changes: { title: 'x' } }), door, 'SERIES_NOT_FOUND', 404, { slug: input.slug });
    expectError(await theirs.update(input.slug as string, { changes: { title: 'x' }, expectedVersion: 1 }), door, 'SERIES_NOT_FOUND', 404, { slug: input.slug });
    expectError(await theirs.delete(input.slug as string), door, 'SERIES_NOT_FOUND', 404, { slug: input.slug });
    expect((await theirs.list()).data.total).toBe(0);
    expect((await eventApi(ctx.app.client, stranger.key, door).list({ series: input.slug as string })).data.total).toBe(0);
    // The same slug is free in the other organization.
    expect((await theirs.create({ ...input })).error).toBeUndefined();
  });

  test('the events list\'s series filter: a slug no series has lists nothing, a malformed one is a 400 on series', async () => {
    const list = eventApi(ctx.app.client, key, door);
    expect((await list.list({ series: 'no-such-series' })).data).toMatchObject({ total: 0, events: [] });
    expectValidationError(await list.list({ series: 'Not A Slug' }), door, ['series']);
  });

  test('a series read with its occurrences in one GraphQL query', async () => {
    if (door === 'rest') return;
    const input = seriesInput();
    expect((await api.create(input)).error).toBeUndefined();
    const answer = await ctx.app.client.graphql(key, `query($slug: String!) {
      series(slug: $slug) { slug occurrenceCount occurrences(limit: 2) { total nextCursor events { slug series { slug } ticketTypes { name } } } }
    }`, { slug: input.slug });
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.series).toMatchObject({
      slug: input.slug,
      occurrenceCount: 6,
      occurrences: { total: 6, nextCursor: expect.any(String), events: [{ slug: `${input.slug}-2027-03-02`, series: { slug: input.slug }, ticketTypes: [{ name: 'Drop-in' }] }, expect.any(Object)] },
    });
  });

  test('permissions: events:read reads, events:write writes', async () => {
    const reader = (await createApiKey(ctx.app.orm, organizationId, { permissions: ['events:read'] })).key;
    const readOnly = seriesApi(ctx.app.client, reader, door);
    const refused = await readOnly.create(seriesInput());
    expect(refused.error?.code).toBe('FORBIDDEN');
    expect(refused.status).toBe(403);
    expect((await readOnly.list()).error).toBeUndefined();
  });

  test('seriesList: newest first, exact total, cursor pages', async () => {
    const tenant = await createTenant(ctx.app.orm);
    const own = seriesApi(ctx.app.client, tenant.key, door);
    const slugs: string[] = [];
    for (let made = 0; made < 3; made += 1) {
      const input = seriesInput({ recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'] });
      expect((await own.create(input)).error).toBeUndefined();
      slugs.push(input.slug as string);
    }
    const first = await own.list({ limit: 2 });
    expect(first.data).toMatchObject({ total: 3, page: 1, limit: 2 });
    expect(first.data.series.map((series: any) => series.slug)).toEqual([slugs[2], slugs[1]]);
    const next = await own.list({ limit: 2, after: first.data.nextCursor });
    expect(next.data.series.map((series: any) => series.slug)).toEqual([slugs[0]]);
    expect(next.data.nextCursor).toBeNull();
  });
});

describe('createSeries with an Idempotency-Key, and concurrently', () => {
  test.each(DOORS)('%s: a retry answers the same series, nothing made twice; identical creates at once make one series and one clean error', async (door) => {
    const tenant = await createTenant(ctx.app.orm);
    const key = randomUUID();
    const input = seriesInput();
    const api = seriesApi(ctx.app.client, tenant.key, door).withIdempotencyKey(key);
    const first = await api.create(input);
    const retry = await api.create(input);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.data).toEqual(first.data);
    expect((await seriesApi(ctx.app.client, tenant.key, door).list()).data.total).toBe(1);
    expect((await eventApi(ctx.app.client, tenant.key, door).list({ limit: 100 })).data.total).toBe(6);

    const plain = seriesApi(ctx.app.client, tenant.key, door);
    const racing = seriesInput();
    const answers = await Promise.all([plain.create(racing), plain.create(racing), plain.create(racing)]);
    expect(answers.filter((answer) => answer.error === undefined)).toHaveLength(1);
    for (const refused of answers.filter((answer) => answer.error !== undefined)) expectValidationError(refused, door, ['slug']);
    expect((await plain.list()).data.total).toBe(2);
    expect((await eventApi(ctx.app.client, tenant.key, door).list({ limit: 100 })).data.total).toBe(12);
  });
});

test('whatever the body, a series write answers 2xx or 4xx in the envelope, never a 5xx (a seeded property)', async () => {
  const tenant = await createTenant(ctx.app.orm);
  const existing = seriesInput();
  expect((await seriesApi(ctx.app.client, tenant.key, 'rest').create(existing)).error).toBeUndefined();
  const part = fc.oneof(
    fc.constantFrom('FREQ=DAILY', 'FREQ=WEEKLY', 'FREQ=MONTHLY', 'FREQ=YEARLY', 'FREQ=HOURLY', 'FREQ=NEVER', 'WKST=SU', 'INTERVAL=0', 'BYSETPOS=-1'),
    fc.integer({ min: -3, max: 40 }).map((n) => `COUNT=${n}`),
    fc.integer({ min: 1, max: 12 }).map((n) => `BYMONTHDAY=${n}`),
    fc.integer({ min: 0, max: 25 }).map((n) => `BYHOUR=${n}`),
    fc.subarray(['MO', 'TU', '2WE', '-1FR', 'XX']).map((days) => `BYDAY=${days.join(',')}`),
    fc.constantFrom('UNTIL=20270601T000000Z', 'UNTIL=20270601', 'UNTIL=garbage'),
    fc.string({ maxLength: 12 }),
  );
  const line = fc.oneof(
    fc.array(part, { maxLength: 5 }).map((parts) => `RRULE:${parts.join(';')}`),
    fc.constantFrom('RDATE:20270305T180000', 'EXDATE:20270309T180000', 'RDATE;VALUE=DATE:20270401', 'EXDATE:20261231T235959Z', 'RDATE:1', 'DTSTART:20270301T180000'),
    fc.string({ maxLength: 40 }),
  );
  const body = fc.record(
    {
      title: fc.oneof(fc.constant('Yoga'), fc.string({ maxLength: 5 }), fc.integer()),
      slug: fc.oneof(fc.constant(existing.slug as string), fc.stringMatching(/^[a-z0-9-]{0,12}$/), fc.constant(null)),
      timezone: fc.constantFrom('Europe/Berlin', 'UTC', 'Mars/Base', '', 'america/new_york'),
      firstStart: fc.constantFrom('2027-03-02T18:00', '2027-02-30T18:00', '2020-01-01T00:00', '2027-03-28T02:30', 'tomorrow', '2027-03-02T18:00:00Z'),
      durationMinutes: fc.oneof(fc.integer({ min: -5, max: 20_000 }), fc.constant('60')),
      recurrence: fc.oneof(fc.array(line, { maxLength: 4 }), fc.string({ maxLength: 20 })),
      capacity: fc.oneof(fc.constant(undefined), fc.integer({ min: -1, max: 2_000_000 })),
    },
    { requiredKeys: [] },
  );
  const changes = fc.record({ firstStart: fc.constantFrom('2027-03-02T19:00', 'x'), recurrence: fc.array(line, { maxLength: 3 }), title: fc.string({ maxLength: 3 }) }, { requiredKeys: [] });
  await fc.assert(
    fc.asyncProperty(body, changes, fc.constantFrom('ALL', 'FOLLOWING', 'SOMETIMES'), fc.integer({ min: 0, max: 3 }), async (input, change, scope, version) => {
      const created = await ctx.app.client.rest('POST', '/v1/series', tenant.key, input);
      expect([created.status, created.status < 500]).toEqual([created.status, true]);
      if (created.status >= 400) expect(created.body.error.code).toEqual(expect.any(String));
      const path = `/v1/series/${existing.slug as string}`;
      const args = { changes: change, scope, from: `${existing.slug as string}-2027-03-16`, newSlug: 'fuzz-split', expectedVersion: version };
      for (const [method, route] of [['POST', `${path}/preview`], ['PUT', path]] as const) {
        const answer = await ctx.app.client.rest(method, route, tenant.key, args);
        expect([route, answer.status < 500]).toEqual([route, true]);
      }
    }),
    { numRuns: Number(process.env.SERIES_FUZZ_RUNS ?? 60), seed: process.env.SERIES_FUZZ_RUNS ? Date.now() % 2 ** 31 : 20_261_128 },
  );
});
