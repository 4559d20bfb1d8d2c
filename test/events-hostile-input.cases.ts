import { eventInput } from './helpers/factories';
import { DOORS, eventApi, expectValidationError, type Door } from './helpers/event-api';
import { storedEvent, storedEventCount } from './helpers/event-rows';
import { useTestApp } from './helpers/use-test-app';

// Input that once reached PostgreSQL or the router and came back as a 500: now a 400 naming the field.
const ctx = useTestApp({}, { tenant: true });

// Error-level lines logged by the current test only, so one failure does not cascade into the others.
let logMark = 0;
beforeEach(() => {
  logMark = ctx.app.logs.length;
});
const errorLogs = () => ctx.app.logs.slice(logMark).filter((line) => /"level":(50|60)/.test(line));

describe.each(DOORS)('NUL characters through %s', (door: Door) => {
  test('in create fields, ticket types included, are 400 naming each field; nothing stored', async () => {
    const input = eventInput({
      title: 'Launch\u0000party',
      description: 'text\u0000',
      ticketTypes: [{ name: 'A', price: 1, currency: 'EUR', quantity: 1 }, { name: '\u0000', price: 1, currency: 'EUR', quantity: 1 }],
    });
    const outcome = await eventApi(ctx.app.client, ctx.key, door).create(input);
    expectValidationError(outcome, door, ['description', 'ticketTypes[1].name', 'title']);
    expect(await storedEventCount(ctx.app.orm, ctx.organizationId, { slug: input.slug })).toBe(0);
    expect(errorLogs()).toEqual([]);
  });

  test('in update fields and in the slug are 400, the event unchanged', async () => {
    const api = eventApi(ctx.app.client, ctx.key, door);
    const input = eventInput({ venue: 'Hall' });
    await api.create(input);
    expectValidationError(await api.update(input.slug as string, { venue: 'Hall\u0000B' }), door, ['venue']);
    expect((await storedEvent(ctx.app.orm, { organizationId: ctx.organizationId, slug: input.slug as string }))?.venue).toBe('Hall');
    expectValidationError(await api.get(`${input.slug}\u0000`), door, ['slug']);
    expectValidationError(await api.delete(`${input.slug}\u0000`), door, ['slug']);
    expect(await storedEvent(ctx.app.orm, { organizationId: ctx.organizationId, slug: input.slug as string })).not.toBeNull();
    expect(errorLogs()).toEqual([]);
  });
});

describe.each(DOORS)('lengths counted as the database counts them, through %s', (door: Door) => {
  // A character followed by a variation selector is one "character" to class-validator, two to PostgreSQL.
  const selectors = (count: number) => 'a\uFE0F'.repeat(count / 2);

  test('text that fits by one count and not by the other is 400, not a 500 from the column limit', async () => {
    const api = eventApi(ctx.app.client, ctx.key, door);
    const input = eventInput({
      title: selectors(202),
      venue: selectors(302),
      ticketTypes: [{ name: selectors(102), price: 1, currency: 'EUR', quantity: 1 }],
    });
    expectValidationError(await api.create(input), door, ['ticketTypes[0].name', 'title', 'venue']);
    const stored = eventInput();
    await api.create(stored);
    expectValidationError(await api.update(stored.slug as string, { title: selectors(202) }), door, ['title']);
    expect(errorLogs()).toEqual([]);
  });

  test('200 emoji make a 200-character title, stored verbatim', async () => {
    const title = '\u{1F389}'.repeat(199) + selectors(2).slice(0, 1);
    const input = eventInput({ title, venue: '\u{1F3DF}\uFE0F'.repeat(150) });
    const created = await eventApi(ctx.app.client, ctx.key, door).create(input);
    expect(created.error).toBeUndefined();
    const row = await storedEvent(ctx.app.orm, { organizationId: ctx.organizationId, slug: input.slug as string });
    expect([row?.title, row?.venue]).toEqual([title, input.venue]);
  });
});

test('a NUL character written into a GraphQL document is a 400 validation failure, not a 500', async () => {
  const response = await ctx.app.client.graphql(ctx.key, '{ event(slug: "a\\u0000b") { id } }');
  expect(response.status).toBe(400);
  expect(response.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  expect(errorLogs()).toEqual([]);
});

test.each(['%', '%E0%A4%A', 'launch%zz'])('a slug path %s that is not valid percent-encoding is 400 on field path', async (slug) => {
  for (const method of ['GET', 'PUT', 'DELETE']) {
    const response = await ctx.app.client.rest(method, `/v1/events/${slug}`, ctx.key, method === 'PUT' ? { title: 'x' } : undefined);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ field: 'path', message: expect.any(String) }] } });
  }
  expect(errorLogs()).toEqual([]);
});

test('a repeated status parameter is 400 naming status with the allowed values', async () => {
  const response = await ctx.app.client.rest('GET', '/v1/events?status=DRAFT&status=PUBLISHED', ctx.key);
  expect(response.status).toBe(400);
  expect(response.body.error.details.errors).toEqual([
    { field: 'status', message: 'status must be one of DRAFT, PUBLISHED, CANCELLED, COMPLETED' },
  ]);
});
