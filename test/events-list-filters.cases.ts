import { DOORS, eventApi, expectValidationError } from './helpers/event-api';
import { createTenant } from './helpers/factories';
import { insertEvents } from './helpers/event-rows';
import { useTestApp } from './helpers/use-test-app';

// What a frontend list needs (search, date range, status, order), through both doors, in one statement per page.
const DAY = 24 * 3600 * 1000;
const ctx = useTestApp({}, { tenant: true });
const base = Date.now() + 10 * DAY;
const starts = [3, 1, 4, 2].map((days) => new Date(base + days * DAY));

beforeAll(async () => {
  const titles = ['Rust Meetup', 'Jazz night', 'TypeScript 100% Day', 'rusty_bikes'];
  for (const [index, startDate] of starts.entries()) {
    const [event] = await insertEvents(ctx.app.orm, ctx.organizationId, 1, {
      startDate,
      endDate: new Date(startDate.getTime() + 3600_000),
      createdAt: new Date(Date.now() - (10 - index) * 1000),
    });
    await ctx.app.orm.em.fork().getConnection().execute('update events set title = ? where id = ?', [titles[index], event.id]);
  }
  // Another organization's event never shows.
  const other = await createTenant(ctx.app.orm);
  await insertEvents(ctx.app.orm, other.organization.id, 2);
});

const titlesOf = (outcome: any): string[] => outcome.data.events.map((event: { title: string }) => event.title);

describe.each(DOORS)('event list filters through %s', (door) => {
  test('orderBy: createdAt or startDate, either direction; newest first by default', async () => {
    const api = eventApi(ctx.app.client, ctx.key, door);
    expect(titlesOf(await api.list())).toEqual(['rusty_bikes', 'TypeScript 100% Day', 'Jazz night', 'Rust Meetup']);
    expect(titlesOf(await api.list({ orderBy: 'CREATED_AT_ASC' }))).toEqual(['Rust Meetup', 'Jazz night', 'TypeScript 100% Day', 'rusty_bikes']);
    expect(titlesOf(await api.list({ orderBy: 'START_DATE_ASC' }))).toEqual(['Jazz night', 'rusty_bikes', 'Rust Meetup', 'TypeScript 100% Day']);
    expect(titlesOf(await api.list({ orderBy: 'START_DATE_DESC' }))).toEqual(['TypeScript 100% Day', 'Rust Meetup', 'rusty_bikes', 'Jazz night']);
  });

  test('startsAfter / startsBefore bound the start date (strictly), and the total follows the filter', async () => {
    const api = eventApi(ctx.app.client, ctx.key, door);
    const outcome = await api.list({
      startsAfter: new Date(base + 1 * DAY).toISOString(),
      startsBefore: new Date(base + 4 * DAY).toISOString(),
      orderBy: 'START_DATE_ASC',
    });
    expect(titlesOf(outcome)).toEqual(['rusty_bikes', 'Rust Meetup']);
    expect(outcome.data.total).toBe(2);
  });

  test('search matches a part of the title, ignoring case; % and _ are plain characters', async () => {
    const api = eventApi(ctx.app.client, ctx.key, door);
    expect(titlesOf(await api.list({ search: 'RUST', orderBy: 'CREATED_AT_ASC' }))).toEqual(['Rust Meetup', 'rusty_bikes']);
    expect(titlesOf(await api.list({ search: '100%' }))).toEqual(['TypeScript 100% Day']);
    expect(titlesOf(await api.list({ search: 'y_b' }))).toEqual(['rusty_bikes']);
    const none = await api.list({ search: 'zzz' });
    expect(none.data).toMatchObject({ events: [], total: 0 });
  });

  test('filters combine with pages: a page past the end is empty with the true total', async () => {
    const outcome = await eventApi(ctx.app.client, ctx.key, door).list({ search: 'rust', page: 3, limit: 1 });
    expect(outcome.data).toMatchObject({ events: [], total: 2, page: 3, limit: 1 });
  });

  test('bad values are 400 VALIDATION_ERROR naming every failing parameter', async () => {
    const api = eventApi(ctx.app.client, ctx.key, door);
    expectValidationError(await api.list({ orderBy: 'TITLE' }), door, ['orderBy']);
    expectValidationError(await api.list({ startsAfter: 'yesterday', startsBefore: 'soon' }), door, ['startsAfter', 'startsBefore']);
    expectValidationError(await api.list({ search: 'x'.repeat(201) }), door, ['search']);
    expectValidationError(
      await api.list({ startsAfter: new Date(base).toISOString(), startsBefore: new Date(base - DAY).toISOString() }),
      door,
      ['startsBefore'],
    );
  });
});

// Changes legitimately only if a filter is decided to need a statement of its own (docs/architecture.md, "Reads as fixed SQL").
test('performance guard: every filter and order costs one statement for the page and its total', async () => {
  for (const params of [{}, { search: 'rust', orderBy: 'START_DATE_DESC' }, { startsAfter: new Date(base).toISOString(), status: 'DRAFT', limit: 100 }]) {
    for (const door of DOORS) {
      await eventApi(ctx.app.client, ctx.key, door).list({ limit: 1 });
      ctx.app.sql.reset();
      const outcome = await eventApi(ctx.app.client, ctx.key, door).list(params);
      expect(outcome.error).toBeUndefined();
      const statements = ctx.app.sql.statements.filter((statement) => !/api_keys/.test(statement));
      expect(statements).toHaveLength(1);
    }
  }
});
