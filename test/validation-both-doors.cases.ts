import { eventInput } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';

// D4: every failing field, every time, named the same way and with the same message
// through REST, GraphQL variables and GraphQL values written inline.
const ctx = useTestApp({}, { tenant: true });

type FieldErrors = Array<{ field: string; message: string }>;
const sorted = (errors: FieldErrors) => [...errors].sort((a, b) => a.field.localeCompare(b.field));

async function rest(path: string, body?: unknown): Promise<FieldErrors> {
  const response = await ctx.app.client.rest(body === undefined ? 'GET' : 'POST', path, ctx.key, body);
  expect(response.status).toBe(400);
  expect(response.body.error.code).toBe('VALIDATION_ERROR');
  return sorted(response.body.error.details.errors);
}

async function graphql(query: string, variables: Record<string, unknown> = {}): Promise<FieldErrors> {
  const response = await ctx.app.client.graphql(ctx.key, query, variables);
  expect(response.status).toBe(400);
  expect(response.body.errors).toHaveLength(1);
  expect(response.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  return sorted(response.body.errors[0].extensions.details.errors);
}

test('a bad limit and a bad status are both reported, alike through every door', async () => {
  const expected = [
    { field: 'limit', message: 'limit must be between 1 and 100' },
    { field: 'status', message: 'status must be one of DRAFT, PUBLISHED, CANCELLED, COMPLETED' },
  ];
  expect(await rest('/v1/events?limit=1000&status=FOO')).toEqual(expected);
  expect(await graphql('query L($l: Int, $s: EventStatus) { events(limit: $l, status: $s) { total } }', { l: 1000, s: 'FOO' })).toEqual(expected);
  expect(await graphql('{ events(limit: 1000, status: FOO) { total } }')).toEqual(expected);
});

test('a range error alone is 400 before anything runs, inline or as a variable', async () => {
  const expected = [{ field: 'limit', message: 'limit must be between 1 and 100' }];
  expect(await rest('/v1/events?limit=0')).toEqual(expected);
  expect(await graphql('{ events(limit: 0) { total } }')).toEqual(expected);
  expect(await graphql('query L($size: Int) { events(limit: $size) { total } }', { size: 0 })).toEqual(expected);
});

test('a type error inside an input names the field with the same message inline, as a variable and in REST', async () => {
  const input = eventInput({ capacity: 'many' });
  const expected = [{ field: 'capacity', message: 'capacity must be an integer' }];
  expect(await rest('/v1/events', input)).toEqual(expected);
  expect(await graphql('mutation C($input: CreateEventInput!) { createEvent(input: $input) { id } }', { input })).toEqual(expected);
  expect(await graphql('mutation C($c: Int) { createEvent(input: { title: "t", slug: "a-b", startDate: "2031-01-01T00:00:00Z", endDate: "2031-01-02T00:00:00Z", capacity: $c }) { id } }', { c: 'many' })).toEqual(expected);
  expect(await graphql('mutation { createEvent(input: { title: "t", slug: "a-b", startDate: "2031-01-01T00:00:00Z", endDate: "2031-01-02T00:00:00Z", capacity: "many" }) { id } }')).toEqual(expected);
});

test('inline: a type error comes with the field rules of the other fields', async () => {
  expect(await graphql('mutation { createEvent(input: { title: " ", slug: "Bad Slug", startDate: "2020-01-01T00:00:00Z", endDate: "2031-01-02T00:00:00Z", capacity: 1.5 }) { id } }')).toEqual([
    { field: 'capacity', message: 'capacity must be an integer' },
    { field: 'slug', message: expect.stringContaining('slug must be') },
    { field: 'startDate', message: 'startDate must be in the future' },
    { field: 'title', message: 'title must not be blank' },
  ]);
});

test('a price in exponent form is a number like any other: 1e-7 has seven decimal places (400), 1e2 is 100', async () => {
  const bad = await ctx.app.client.rest('POST', '/v1/events', ctx.key, eventInput({ ticketTypes: [{ name: 'A', price: 1e-7, currency: 'EUR', quantity: 1 }] }));
  expect(bad.status).toBe(400);
  expect(bad.body.error.details.errors).toEqual([{ field: 'ticketTypes[0].price', message: 'price must be a number with at most two decimal places' }]);
  const raw = JSON.stringify(eventInput({ ticketTypes: [{ name: 'A', price: 0, currency: 'EUR', quantity: 1 }] })).replace('"price":0', '"price":1e2');
  const good = await ctx.app.client.request('POST', '/v1/events', { headers: { authorization: `Bearer ${ctx.key}`, 'content-type': 'application/json' }, raw });
  expect(good.status).toBe(201);
  expect(good.body.ticketTypes[0].price).toBe(100);
});
