import { BookingStatus } from '../src/modules/booking/booking.entity';
import { insertBookings, storedEvent } from './helpers/event-rows';
import { createApiKey, createTenant, eventInput } from './helpers/factories';
import { expectGraphqlErrorStatus } from './helpers/event-api';
import type { HttpResponse } from './helpers/https-client';
import { useTestApp } from './helpers/use-test-app';

// D13: a GraphQL error carries the same extensions.code and extensions.details as the REST envelope for
// the same case, and the same message. Each case runs once through each door and the two are compared.

const ctx = useTestApp({}, { tenant: true });
let readOnlyKey: string;
let otherKey: string;
beforeAll(async () => {
  readOnlyKey = (await createApiKey(ctx.app.orm, ctx.organizationId, { permissions: ['events:read', 'members:read'] })).key;
  otherKey = (await createTenant(ctx.app.orm)).key;
});

const GET = 'query($slug: String!) { event(slug: $slug) { id } }';
const CREATE = 'mutation($input: CreateEventInput!) { createEvent(input: $input) { id } }';
const UPDATE = 'mutation($slug: String!, $input: UpdateEventInput!) { updateEvent(slug: $slug, input: $input) { id } }';
const DELETE = 'mutation($slug: String!) { deleteEvent(slug: $slug) { id } }';

function expectSameError(rest: HttpResponse, graphql: HttpResponse, status: number, code: string): void {
  expect(rest.status).toBe(status);
  expect(rest.body.error.code).toBe(code);
  expect(graphql.body.errors).toHaveLength(1);
  const [error] = graphql.body.errors;
  expectGraphqlErrorStatus({ code: error.extensions.code, status: graphql.status, executed: 'data' in graphql.body }, status);
  expect(error.extensions.code).toBe(rest.body.error.code);
  expect(error.extensions.details).toEqual(rest.body.error.details);
  expect(error.message).toBe(rest.body.error.message);
  expect(Object.keys(error.extensions).sort()).toEqual(rest.body.error.details === undefined ? ['code'] : ['code', 'details']);
}

async function createEvent(overrides: Record<string, unknown> = {}): Promise<string> {
  const input = eventInput(overrides);
  expect((await ctx.app.client.rest('POST', '/v1/events', ctx.key, input)).status).toBe(201);
  return input.slug as string;
}

test('401 UNAUTHORIZED', async () => {
  const rest = await ctx.app.client.rest('GET', '/v1/events', undefined);
  const graphql = await ctx.app.client.graphql(undefined, '{ events { total } }');
  expectSameError(rest, graphql, 401, 'UNAUTHORIZED');
  expect(graphql.status).toBe(401);
});

test('401 INVALID_API_KEY', async () => {
  const unknown = `nk_live_${'z'.repeat(32)}`;
  expectSameError(await ctx.app.client.rest('GET', '/v1/events', unknown), await ctx.app.client.graphql(unknown, '{ events { total } }'), 401, 'INVALID_API_KEY');
});

test('403 FORBIDDEN', async () => {
  const input = eventInput();
  const rest = await ctx.app.client.rest('POST', '/v1/events', readOnlyKey, input);
  const graphql = await ctx.app.client.graphql(readOnlyKey, CREATE, { input });
  expectSameError(rest, graphql, 403, 'FORBIDDEN');
  expect(rest.body.error.details).toEqual({ requiredPermission: 'events:write', currentPermissions: ['events:read', 'members:read'] });
});

describe('404 EVENT_NOT_FOUND', () => {
  test.each([
    ['get', 'GET', null, GET],
    ['update', 'PUT', { title: 'x' }, UPDATE],
    ['delete', 'DELETE', null, DELETE],
  ] as const)('%s of an unknown slug', async (_label, method, body, query) => {
    const rest = await ctx.app.client.rest(method, '/v1/events/no-such-event', ctx.key, body ?? undefined);
    const graphql = await ctx.app.client.graphql(ctx.key, query, { slug: 'no-such-event', ...(body ? { input: body } : {}) });
    expectSameError(rest, graphql, 404, 'EVENT_NOT_FOUND');
    expect(rest.body.error.details).toEqual({ slug: 'no-such-event' });
  });

  test("another organization's event, through both doors", async () => {
    const slug = await createEvent();
    const rest = await ctx.app.client.rest('GET', `/v1/events/${slug}`, otherKey);
    const graphql = await ctx.app.client.graphql(otherKey, GET, { slug });
    expectSameError(rest, graphql, 404, 'EVENT_NOT_FOUND');
    expect(rest.body.error.details).toEqual({ slug });
  });
});

describe('400 VALIDATION_ERROR', () => {
  test('a create missing its required fields lists every one', async () => {
    const rest = await ctx.app.client.rest('POST', '/v1/events', ctx.key, { venue: 'Hall A' });
    const graphql = await ctx.app.client.graphql(ctx.key, CREATE, { input: { venue: 'Hall A' } });
    expectSameError(rest, graphql, 400, 'VALIDATION_ERROR');
    expect(graphql.status).toBe(400);
    const fields = rest.body.error.details.errors.map((error: { field: string }) => error.field).sort();
    expect(fields).toEqual(['endDate', 'slug', 'startDate', 'title']);
  });

  test('wrong types in a create', async () => {
    const input = eventInput({ capacity: 'many', startDate: 'tomorrow' });
    const rest = await ctx.app.client.rest('POST', '/v1/events', ctx.key, input);
    const graphql = await ctx.app.client.graphql(ctx.key, CREATE, { input });
    expectSameError(rest, graphql, 400, 'VALIDATION_ERROR');
  });

  test('a rule checked by the service (duplicate slug)', async () => {
    const slug = await createEvent();
    const input = eventInput({ slug });
    const rest = await ctx.app.client.rest('POST', '/v1/events', ctx.key, input);
    const graphql = await ctx.app.client.graphql(ctx.key, CREATE, { input });
    expectSameError(rest, graphql, 400, 'VALIDATION_ERROR');
    expect(rest.body.error.details.errors).toEqual([{ field: 'slug', message: expect.any(String) }]);
  });
});

test('409 EVENT_ALREADY_PUBLISHED', async () => {
  const slug = await createEvent();
  expect((await ctx.app.client.rest('PUT', `/v1/events/${slug}`, ctx.key, { status: 'PUBLISHED' })).status).toBe(200);
  const change = { slug: `${slug}-renamed` };
  const rest = await ctx.app.client.rest('PUT', `/v1/events/${slug}`, ctx.key, change);
  const graphql = await ctx.app.client.graphql(ctx.key, UPDATE, { slug, input: change });
  expectSameError(rest, graphql, 409, 'EVENT_ALREADY_PUBLISHED');
  expect(rest.body.error.details).toEqual({ immutableFields: ['slug'] });
});

test('409 EVENT_HAS_BOOKINGS', async () => {
  const slug = await createEvent();
  const event = (await storedEvent(ctx.app.orm, { organizationId: ctx.organizationId, slug }))!;
  // A confirmed booking, counted in the event as the booking commands count it.
  await insertBookings(ctx.app.orm, { id: event.id, organizationId: ctx.organizationId }, [BookingStatus.CONFIRMED]);
  const rest = await ctx.app.client.rest('DELETE', `/v1/events/${slug}`, ctx.key);
  const graphql = await ctx.app.client.graphql(ctx.key, DELETE, { slug });
  expectSameError(rest, graphql, 409, 'EVENT_HAS_BOOKINGS');
  expect(rest.body.error.details).toEqual({ bookingCount: 1 });
});
