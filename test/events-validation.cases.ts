import { createOrganization, createApiKey, createTenant, eventInput, uniqueSlug } from './helpers/factories';
import { DOORS, eventApi, expectValidationError } from './helpers/event-api';
import { storedEvent, storedEventCount } from './helpers/event-rows';
import { useTestApp } from './helpers/use-test-app';

// D4: every field rule through both doors; every failing field reported; nothing stored on a 400.
const ctx = useTestApp();


// The door-level cases: values the types refuse, and one field rule each way. Every field rule is
// exercised without HTTP in test/commands/event-commands.test.ts.
const INVALID_CREATES: Array<[string, Record<string, unknown>, string[]]> = [
  ['blank title', { title: '   ' }, ['title']],
  ['startDate without a zone', { startDate: '2031-03-01T09:00:00' }, ['startDate']],
  ['startDate that is no date', { startDate: 'next tuesday' }, ['startDate']],
  ['startDate in the past', { startDate: '2020-01-01T09:00:00Z' }, ['startDate']],
  ['endDate without a zone', { endDate: '2031-03-01T18:00:00' }, ['endDate']],
  ['capacity not an integer', { capacity: 1.5 }, ['capacity']],
  ['capacity a string', { capacity: 'abc' }, ['capacity']],
  ['title not a string', { title: 42 }, ['title']],
];

describe.each(DOORS)('validation through %s', (door) => {
  let organizationId: string;
  let key: string;
  beforeAll(async () => {
    const organization = await createOrganization(ctx.app.orm, { timezone: 'Europe/Paris' });
    organizationId = organization.id;
    key = (await createApiKey(ctx.app.orm, organization.id)).key;
  });

  test.each(INVALID_CREATES)('create: %s', async (_name, overrides, fields) => {
    const input = eventInput(overrides);
    const outcome = await eventApi(ctx.app.client, key, door).create(input);
    expectValidationError(outcome, door, fields);
    if (typeof input.slug === 'string') expect(await storedEvent(ctx.app.orm, { organizationId, slug: input.slug })).toBeNull();
  });

  test('create: required fields missing are all reported', async () => {
    expectValidationError(await eventApi(ctx.app.client, key, door).create({}), door, ['endDate', 'slug', 'startDate', 'title']);
  });

  test('create: several failing rules are reported together', async () => {
    const outcome = await eventApi(ctx.app.client, key, door).create(
      eventInput({ title: '', slug: 'No', venue: 'v'.repeat(301), capacity: 0, timezone: 'Nowhere/City', startDate: '2020-01-01T00:00:00Z' }),
    );
    expectValidationError(outcome, door, ['capacity', 'slug', 'startDate', 'timezone', 'title', 'venue']);
  });

  test('create: type errors come with the field rule errors of the other fields', async () => {
    const outcome = await eventApi(ctx.app.client, key, door).create(
      eventInput({
        capacity: 'abc',
        startDate: 'soon',
        title: ' ',
        slug: 'Bad Slug',
        venue: 'v'.repeat(301),
        ticketTypes: [{ name: 'A', price: 'free', currency: 'eur', quantity: 1 }],
      }),
    );
    expectValidationError(outcome, door, ['capacity', 'slug', 'startDate', 'ticketTypes[0].currency', 'ticketTypes[0].price', 'title', 'venue']);
    // The date rules of create too: a past start and an end before it, next to a type error.
    const dates = await eventApi(ctx.app.client, key, door).create(
      eventInput({ capacity: 'abc', startDate: '2020-01-02T00:00:00Z', endDate: '2020-01-01T00:00:00Z' }),
    );
    expectValidationError(dates, door, ['capacity', 'endDate', 'startDate']);
  });

  test('update: type errors come with the field rule errors of the other fields', async () => {
    const api = eventApi(ctx.app.client, key, door);
    const input = eventInput({ title: 'Kept' });
    await api.create(input);
    expectValidationError(await api.update(input.slug as string, { capacity: 'many', title: '', status: 'DONE' }), door, ['capacity', 'status', 'title']);
    expect((await storedEvent(ctx.app.orm, { organizationId, slug: input.slug as string }))?.title).toBe('Kept');
  });

  test('create: the limits themselves are accepted, markdown kept verbatim, timezone defaults to the organization', async () => {
    const description = `# Agenda\n\n* **talks** _and_ \`code\`\n\n> quote <b>html</b> & "quotes"  \n${'x'.repeat(9_900)}`.slice(0, 10_000);
    const input = eventInput({ title: 't'.repeat(200), slug: `a${'-b'.repeat(49)}c`, description, venue: 'v'.repeat(300), capacity: 1_000_000 });
    const outcome = await eventApi(ctx.app.client, key, door).create(input);
    expect(outcome.error).toBeUndefined();
    expect(outcome.data).toMatchObject({ description, timezone: 'Europe/Paris', capacity: 1_000_000 });
    const row = await storedEvent(ctx.app.orm, { organizationId, slug: input.slug as string });
    expect(row?.description).toBe(description);
    expect(row?.timezone).toBe('Europe/Paris');

    const small = await eventApi(ctx.app.client, key, door).create(eventInput({ capacity: 1, timezone: 'America/New_York' }));
    expect(small.data).toMatchObject({ capacity: 1, timezone: 'America/New_York' });
  });

  test('update: the same rules, every failing field at once, nothing applied', async () => {
    const api = eventApi(ctx.app.client, key, door);
    const input = eventInput({ title: 'Original' });
    await api.create(input);
    const outcome = await api.update(input.slug as string, {
      title: ' ',
      slug: 'Not OK',
      description: 'd'.repeat(10_001),
      timezone: 'Atlantis/Capital',
      venue: 'v'.repeat(301),
      capacity: 1_000_001,
    });
    expectValidationError(outcome, door, ['capacity', 'description', 'slug', 'timezone', 'title', 'venue']);
    expect((await storedEvent(ctx.app.orm, { organizationId, slug: input.slug as string }))?.title).toBe('Original');
  });

  test('update: required fields cannot be cleared with null', async () => {
    const api = eventApi(ctx.app.client, key, door);
    const input = eventInput();
    await api.create(input);
    const outcome = await api.update(input.slug as string, { title: null, slug: null, startDate: null, endDate: null, timezone: null });
    expectValidationError(outcome, door, ['endDate', 'slug', 'startDate', 'timezone', 'title']);
  });

  test('list: page, limit and status are checked and named', async () => {
    const api = eventApi(ctx.app.client, key, door);
    expectValidationError(await api.list({ page: 0 }), door, ['page']);
    expectValidationError(await api.list({ page: -1 }), door, ['page']);
    expectValidationError(await api.list({ limit: 0 }), door, ['limit']);
    expectValidationError(await api.list({ limit: 101 }), door, ['limit']);
    expectValidationError(await api.list({ status: 'ARCHIVED' }), door, ['status']);
    expectValidationError(await api.list({ page: 0, limit: 500 }), door, ['limit', 'page']);
  });
});

describe('REST-only body and query handling', () => {
  let key: string;
  let organizationId: string;
  beforeAll(async () => {
    ({ key, organization: { id: organizationId } } = await createTenant(ctx.app.orm));
  });

  test('malformed JSON is 400 on field body', async () => {
    const response = await ctx.app.client.request('POST', '/v1/events', {
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      raw: '{"title": "unterminated',
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ field: 'body' }] } });
  });

  test.each([['an array', []], ['a string', 'launch'], ['a number', 42], ['null', null]])(
    'a body that is %s is 400 on field body (create and update)',
    async (_name, body) => {
      const slug = uniqueSlug();
      await eventApi(ctx.app.client, key, 'rest').create(eventInput({ slug }));
      for (const [method, path] of [['POST', '/v1/events'], ['PUT', `/v1/events/${slug}`]]) {
        const response = await ctx.app.client.request(method, path, {
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          raw: JSON.stringify(body),
        });
        expect(response.status).toBe(400);
        expect(response.body.error.details.errors).toEqual([{ field: 'body', message: expect.any(String) }]);
      }
    },
  );

  test('a missing body is 400 on field body', async () => {
    const response = await ctx.app.client.rest('POST', '/v1/events', key);
    expect(response.status).toBe(400);
    expect(response.body.error.details.errors).toEqual([{ field: 'body', message: expect.any(String) }]);
  });

  test('unknown fields are ignored and the response shows what was stored', async () => {
    const input = eventInput({ id: 'evt_mine', registrationCount: 99, organizationId: 'org_other', color: 'red' });
    const created = await eventApi(ctx.app.client, key, 'rest').create(input);
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ registrationCount: 0, organizationId, status: 'DRAFT' });
    expect(created.data.id).not.toBe('evt_mine');
    expect(created.data).not.toHaveProperty('color');
    const updated = await eventApi(ctx.app.client, key, 'rest').update(input.slug as string, { title: 'New', ticketTypes: [], id: 'x' });
    expect(updated.status).toBe(200);
    expect(updated.data).toMatchObject({ title: 'New', id: created.data.id });
  });

  test.each([
    ['page=abc', 'page'],
    ['page=1.5', 'page'],
    ['page=', 'page'],
    ['page=1&page=2', 'page'],
    ['limit=ten', 'limit'],
    ['limit=99999999999', 'limit'],
    ['status=published', 'status'],
    ['status=', 'status'],
  ])('query %s is 400 naming %s', async (query, field) => {
    const response = await ctx.app.client.rest('GET', `/v1/events?${query}`, key);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.details.errors.map((error: { field: string }) => error.field)).toEqual([field]);
  });

  test('GraphQL rejects input fields the type does not have, naming them', async () => {
    const outcome = await eventApi(ctx.app.client, key, 'graphql').create(eventInput({ status: 'PUBLISHED' }));
    expectValidationError(outcome, 'graphql', ['status']);
    expect(await storedEventCount(ctx.app.orm, organizationId, { title: 'never' })).toBe(0);
  });
});
