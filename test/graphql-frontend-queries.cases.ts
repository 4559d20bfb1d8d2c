import { BOOKING_FIELDS, CREATE_BOOKING, bookingInput, createPublishedEvent, ticket } from './helpers/bookings';
import { eventApi } from './helpers/event-api';
import { insertEvents } from './helpers/event-rows';
import { createApiKey, createTenant } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';

// Issue 13 items 9 and 11: nullable single-object root fields, Query.booking(id), Query.viewer; and
// issue 8's statement budget (one statement for an event, one for a list page, two with ticket types).
let app: TestApp;
let tenant: Awaited<ReturnType<typeof createTenant>>;
let slugWithTypes: string;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMIT_PER_MINUTE: '500' });
  tenant = await createTenant(app.orm);
  await insertEvents(app.orm, tenant.organization.id, 100, { ticketTypesEach: 3 });
  slugWithTypes = (await insertEvents(app.orm, tenant.organization.id, 1, { ticketTypesEach: 25 }))[0].slug;
});
afterAll(() => app.close());

test('a missing event is null with EVENT_NOT_FOUND at its path; the other root fields still answer', async () => {
  const response = await app.client.graphql(tenant.key, '{ events { total } event(slug: "nope") { id } }');
  expect(response.status).toBe(200);
  expect(response.body.data).toEqual({ events: { total: 101 }, event: null });
  expect(response.body.errors).toEqual([
    expect.objectContaining({ path: ['event'], extensions: expect.objectContaining({ code: 'EVENT_NOT_FOUND' }) }),
  ]);
  // REST is unchanged: 404 with the envelope.
  const rest = await app.client.rest('GET', '/v1/events/nope', tenant.key);
  expect(rest.status).toBe(404);
  expect(rest.body.error.code).toBe('EVENT_NOT_FOUND');
});

describe('Query.booking(id)', () => {
  let bookingId: string;
  beforeAll(async () => {
    const event = await createPublishedEvent(app.client, tenant.key, { ticketTypes: [ticket()] });
    const created = await app.client.graphql(tenant.key, CREATE_BOOKING, { input: bookingInput(event.slug, { quantity: 2 }) });
    bookingId = created.body.data.createBooking.id;
  });

  test('returns the booking of the organization', async () => {
    const response = await app.client.graphql(tenant.key, `query($id: ID!) { booking(id: $id) { ${BOOKING_FIELDS} } }`, { id: bookingId });
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.booking).toMatchObject({ id: bookingId, quantity: 2, status: 'CONFIRMED' });
  });

  test("another organization's booking is null with BOOKING_NOT_FOUND, as a missing one", async () => {
    const other = await createTenant(app.orm);
    for (const id of [bookingId, 'bk_doesnotexist']) {
      const response = await app.client.graphql(other.key, 'query($id: ID!) { booking(id: $id) { id } }', { id });
      expect(response.body.data).toEqual({ booking: null });
      expect(response.body.errors[0]).toMatchObject({ path: ['booking'], extensions: { code: 'BOOKING_NOT_FOUND', details: { id } } });
    }
  });

  test('needs bookings:read; a malformed id is a validation error', async () => {
    const { key } = await createApiKey(app.orm, tenant.organization.id, { permissions: ['events:read'] });
    const denied = await app.client.graphql(key, 'query($id: ID!) { booking(id: $id) { id } }', { id: bookingId });
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const malformed = await app.client.graphql(tenant.key, '{ booking(id: "nope") { id } }');
    expect(malformed.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ field: 'id' }] } });
  });
});

test("viewer: the key's organization, name, environment, permissions and rate-limit budget left, for any key", async () => {
  const { key, id } = await createApiKey(app.orm, tenant.organization.id, { permissions: ['members:read'], name: 'frontend' });
  const query = '{ viewer { keyId name environment permissions organization { id name timezone plan } rateLimit { limit remaining resetSeconds } } }';
  const first = await app.client.graphql(key, query);
  expect(first.body.errors).toBeUndefined();
  expect(first.body.data.viewer).toEqual({
    keyId: id,
    name: 'frontend',
    environment: 'test',
    permissions: ['members:read'],
    organization: { id: tenant.organization.id, name: tenant.organization.name, timezone: 'UTC', plan: 'STANDARD' },
    rateLimit: { limit: 500, remaining: Number(first.headers['ratelimit-remaining']), resetSeconds: expect.any(Number) },
  });
  const second = await app.client.graphql(key, query);
  expect(second.body.data.viewer.rateLimit.remaining).toBeLessThan(first.body.data.viewer.rateLimit.remaining);
  // Without a key it is still 401, like everything else.
  expect((await app.client.graphql(undefined, query)).status).toBe(401);
});

describe('statement budget (issue 8)', () => {
  async function statementsOf(call: () => Promise<unknown>): Promise<string[]> {
    await eventApi(app.client, tenant.key, 'rest').list({ limit: 1 });
    app.sql.reset();
    await call();
    return app.sql.statements.filter((statement) => !/\bapi_keys\b/.test(statement));
  }

  test('one event with 25 ticket types: 1 statement through both doors', async () => {
    for (const door of ['rest', 'graphql'] as const) {
      let outcome: any;
      const statements = await statementsOf(async () => {
        outcome = await eventApi(app.client, tenant.key, door).get(slugWithTypes);
      });
      expect(outcome.data.ticketTypes).toHaveLength(25);
      expect(statements).toHaveLength(1);
    }
  });

  test.each([1, 20, 100])('a list page of %i events: 1 statement through both doors', async (limit) => {
    for (const door of ['rest', 'graphql'] as const) {
      let outcome: any;
      const statements = await statementsOf(async () => {
        outcome = await eventApi(app.client, tenant.key, door).list({ limit });
      });
      expect(outcome.data.events).toHaveLength(limit);
      expect(statements).toHaveLength(1);
    }
  });

  test('a GraphQL page of 100 events with their ticket types: 2 statements', async () => {
    let body: any;
    const statements = await statementsOf(async () => {
      body = (await app.client.graphql(tenant.key, '{ events(limit: 100) { total events { slug ticketTypes { id name price } } } }')).body;
    });
    expect(body.errors).toBeUndefined();
    expect(body.data.events.events).toHaveLength(100);
    expect(statements.length).toBeLessThanOrEqual(2);
  });
});
