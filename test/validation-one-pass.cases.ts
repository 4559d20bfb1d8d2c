import { eventInput } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';

// D4: an input is checked in one pass (assertValidInput, src/foundation/validation/validate-input.ts):
// its argument rules, the rules of its input class and its uniqueness check together, every failing
// field in one VALIDATION_ERROR, alike through REST and GraphQL.
const ctx = useTestApp({}, { tenant: true });

type FieldErrors = Array<{ field: string; message: string }>;

async function restErrors(method: string, path: string, body: unknown): Promise<FieldErrors> {
  const response = await ctx.app.client.rest(method, path, ctx.key, body);
  expect(response.status).toBe(400);
  expect(response.body.error.code).toBe('VALIDATION_ERROR');
  return response.body.error.details.errors;
}

async function graphqlErrors(query: string, variables: Record<string, unknown>): Promise<FieldErrors> {
  const response = await ctx.app.client.graphql(ctx.key, query, variables);
  expect(response.body.errors).toHaveLength(1);
  expect(response.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  return response.body.errors[0].extensions.details.errors;
}

const CREATE_EVENT = 'mutation C($input: CreateEventInput!) { createEvent(input: $input) { id } }';

test('an event with four bad fields and a taken slug gets all five reported at once, alike in REST and GraphQL', async () => {
  const taken = eventInput();
  expect((await ctx.app.client.rest('POST', '/v1/events', ctx.key, taken)).status).toBe(201);
  const input = eventInput({ slug: taken.slug, title: '   ', startDate: '2020-01-01T00:00:00Z', capacity: 0, coverImage: 'http://example.com/a.jpg' });

  const rest = await restErrors('POST', '/v1/events', input);
  expect(rest.map((error) => error.field).sort()).toEqual(['capacity', 'coverImage', 'slug', 'startDate', 'title']);
  expect(rest).toContainEqual({ field: 'slug', message: `slug "${String(taken.slug)}" is already used by another event of this organization` });
  expect(rest).toContainEqual({ field: 'title', message: 'title must not be blank' });
  expect(rest).toContainEqual({ field: 'startDate', message: 'startDate must be in the future' });
  // The uniqueness check joins the input's own rules, after them.
  expect(rest[rest.length - 1].field).toBe('slug');

  expect(await graphqlErrors(CREATE_EVENT, { input })).toEqual(rest);
  expect((await ctx.app.client.rest('GET', `/v1/events/${String(taken.slug)}`, ctx.key)).status).toBe(200);
});

test('an update with several bad fields gets all of them reported at once, alike in REST and GraphQL', async () => {
  const event = eventInput();
  expect((await ctx.app.client.rest('POST', '/v1/events', ctx.key, event)).status).toBe(201);
  const changes = { title: '', capacity: -1, coverImage: 'not a url' };

  const rest = await restErrors('PUT', `/v1/events/${String(event.slug)}`, changes);
  expect(rest.map((error) => error.field).sort()).toEqual(['capacity', 'coverImage', 'title']);

  const graphql = await graphqlErrors('mutation U($slug: String!, $input: UpdateEventInput!) { updateEvent(slug: $slug, input: $input) { id } }', {
    slug: event.slug,
    input: changes,
  });
  expect(graphql).toEqual(rest);
});

test("a booking's argument rules (event slug, ticket type id) and its input class rules are reported together", async () => {
  const errors = await graphqlErrors(
    'mutation B($input: CreateBookingInput!) { createBooking(input: $input) { id } }',
    { input: { eventSlug: 'Not A Slug', ticketTypeId: 'nope', quantity: 0, attendeeEmail: 'not-an-email', attendeeName: ' ' } },
  );
  // In the order of the pass: the argument rules, then the input class's rules.
  expect(errors.map((error) => error.field)).toEqual(['eventSlug', 'ticketTypeId', 'quantity', 'attendeeEmail', 'attendeeName']);
  expect(errors.slice(0, 2)).toEqual([
    { field: 'eventSlug', message: 'eventSlug must be an event slug: lower-case letters and digits joined by single hyphens' },
    { field: 'ticketTypeId', message: 'ticketTypeId must be an id starting with tt_' },
  ]);
});

test('list arguments: every bad one is reported at once, alike in REST and GraphQL', async () => {
  const expected = [
    { field: 'page', message: 'page must be between 1 and 1000000' },
    { field: 'limit', message: 'limit must be between 1 and 100' },
  ];
  const response = await ctx.app.client.rest('GET', '/v1/events?page=0&limit=101', ctx.key);
  expect(response.status).toBe(400);
  expect(response.body.error.details.errors).toEqual(expected);
  expect(await graphqlErrors('query L($p: Int, $l: Int) { events(page: $p, limit: $l) { total } }', { p: 0, l: 101 })).toEqual(expected);
  expect(
    await graphqlErrors('query B($s: String!) { bookings(eventSlug: $s, page: 0, limit: 101) { total } }', { s: 'Not A Slug' }),
  ).toEqual([{ field: 'eventSlug', message: 'eventSlug must be an event slug: lower-case letters and digits joined by single hyphens' }, ...expected]);
});
