import { BOOKING_FIELDS, CREATE_BOOKING, bookingInput, createPublishedEvent, ticket } from './helpers/bookings';
import { eventApi } from './helpers/event-api';
import { insertEvents } from './helpers/event-rows';
import { createApiKey, createTenant } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';

// What a frontend asks GraphQL for: nullable single-object root fields, Query.booking(id),
// Query.viewer; and the statements those reads cost (one for an event, one for a list page, two with
// ticket types: docs/architecture.md, "The hot read path").
const ctx = useTestApp({ RATE_LIMIT_PER_MINUTE: '500' }, { tenant: true });
let slugWithTypes: string;
beforeAll(async () => {
  await insertEvents(ctx.app.orm, ctx.organizationId, 100, { ticketTypesEach: 3 });
  slugWithTypes = (await insertEvents(ctx.app.orm, ctx.organizationId, 1, { ticketTypesEach: 25 }))[0].slug;
});

test('a missing event is null with EVENT_NOT_FOUND at its path; the other root fields still answer', async () => {
  const response = await ctx.app.client.graphql(ctx.tenant.key, '{ events { total } event(slug: "nope") { id } }');
  expect(response.status).toBe(200);
  expect(response.body.data).toEqual({ events: { total: 101 }, event: null });
  expect(response.body.errors).toEqual([
    expect.objectContaining({ path: ['event'], extensions: expect.objectContaining({ code: 'EVENT_NOT_FOUND' }) }),
  ]);
  // REST is unchanged: 404 with the envelope.
  const rest = await ctx.app.client.rest('GET', '/v1/events/nope', ctx.tenant.key);
  expect(rest.status).toBe(404);
  expect(rest.body.error.code).toBe('EVENT_NOT_FOUND');
});

describe('Query.booking(id)', () => {
  let bookingId: string;
  beforeAll(async () => {
    const event = await createPublishedEvent(ctx.app.client, ctx.tenant.key, { ticketTypes: [ticket()] });
    const created = await ctx.app.client.graphql(ctx.tenant.key, CREATE_BOOKING, { input: bookingInput(event.slug, { quantity: 2 }) });
    bookingId = created.body.data.createBooking.id;
  });

  test('returns the booking of the organization', async () => {
    const response = await ctx.app.client.graphql(ctx.tenant.key, `query($id: ID!) { booking(id: $id) { ${BOOKING_FIELDS} } }`, { id: bookingId });
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.booking).toMatchObject({ id: bookingId, quantity: 2, status: 'CONFIRMED' });
  });

  test("another organization's booking is null with BOOKING_NOT_FOUND, as a missing one", async () => {
    const other = await createTenant(ctx.app.orm);
    for (const id of [bookingId, 'bk_doesnotexist']) {
      const response = await ctx.app.client.graphql(other.key, 'query($id: ID!) { booking(id: $id) { id } }', { id });
      expect(response.body.data).toEqual({ booking: null });
      expect(response.body.errors[0]).toMatchObject({ path: ['booking'], extensions: { code: 'BOOKING_NOT_FOUND', details: { id } } });
    }
  });

  test('needs bookings:read; a malformed id is a validation error', async () => {
    const { key } = await createApiKey(ctx.app.orm, ctx.tenant.organization.id, { permissions: ['events:read'] });
    const denied = await ctx.app.client.graphql(key, 'query($id: ID!) { booking(id: $id) { id } }', { id: bookingId });
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const malformed = await ctx.app.client.graphql(ctx.tenant.key, '{ booking(id: "nope") { id } }');
    expect(malformed.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ field: 'id' }] } });
  });
});

test("viewer: the key's organization, name, environment, permissions and rate-limit budget left, for any key", async () => {
  const { key, id } = await createApiKey(ctx.app.orm, ctx.tenant.organization.id, { permissions: ['members:read'], name: 'frontend' });
  const query = '{ viewer { keyId name environment permissions organization { id name timezone plan } rateLimit { limit remaining resetSeconds } } }';
  const first = await ctx.app.client.graphql(key, query);
  expect(first.body.errors).toBeUndefined();
  expect(first.body.data.viewer).toEqual({
    keyId: id,
    name: 'frontend',
    environment: 'test',
    permissions: ['members:read'],
    organization: { id: ctx.tenant.organization.id, name: ctx.tenant.organization.name, timezone: 'UTC', plan: 'STANDARD' },
    rateLimit: { limit: 500, remaining: Number(first.headers['ratelimit-remaining']), resetSeconds: expect.any(Number) },
  });
  const second = await ctx.app.client.graphql(key, query);
  expect(second.body.data.viewer.rateLimit.remaining).toBeLessThan(first.body.data.viewer.rateLimit.remaining);
  // Without a key it is still 401, like everything else.
  expect((await ctx.app.client.graphql(undefined, query)).status).toBe(401);
});

// Changes legitimately only when docs/architecture.md's hot read path is changed first, never to let a read grow.
describe('performance guard: the statements of a frontend\'s reads', () => {
  async function statementsOf(call: () => Promise<unknown>): Promise<string[]> {
    await eventApi(ctx.app.client, ctx.tenant.key, 'rest').list({ limit: 1 });
    ctx.app.sql.reset();
    await call();
    return ctx.app.sql.statements.filter((statement) => !/\bapi_keys\b/.test(statement));
  }

  test('one event with 25 ticket types: 1 statement through both doors', async () => {
    for (const door of ['rest', 'graphql'] as const) {
      let outcome: any;
      const statements = await statementsOf(async () => {
        outcome = await eventApi(ctx.app.client, ctx.tenant.key, door).get(slugWithTypes);
      });
      expect(outcome.data.ticketTypes).toHaveLength(25);
      expect(statements).toHaveLength(1);
    }
  });

  test.each([1, 20, 100])('a list page of %i events: 1 statement through both doors', async (limit) => {
    for (const door of ['rest', 'graphql'] as const) {
      let outcome: any;
      const statements = await statementsOf(async () => {
        outcome = await eventApi(ctx.app.client, ctx.tenant.key, door).list({ limit });
      });
      expect(outcome.data.events).toHaveLength(limit);
      expect(statements).toHaveLength(1);
    }
  });

  test('a GraphQL page of 100 events with their ticket types: 2 statements', async () => {
    let body: any;
    const statements = await statementsOf(async () => {
      body = (await ctx.app.client.graphql(ctx.tenant.key, '{ events(limit: 100) { total events { slug ticketTypes { id name price } } } }')).body;
    });
    expect(body.errors).toBeUndefined();
    expect(body.data.events.events).toHaveLength(100);
    expect(statements.length).toBeLessThanOrEqual(2);
  });
});
