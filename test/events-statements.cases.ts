import { createTenant } from './helpers/factories';
import { eventApi } from './helpers/event-api';
import { insertEvents } from './helpers/event-rows';
import { startTestApp, type TestApp } from './helpers/test-app';

// Issue 2, "built for speed": no N+1. A statement count, not a timing, so it cannot flake. The counts
// are the README's promise ("Performance", "Reads as fixed SQL"): a list page one statement with its
// total (a page past the end still carries the total), a full event with its ticket types one, the
// ticket types of a whole GraphQL page one more (1 / 1 / 2), through both doors.
let app: TestApp;
let key: string;
let slugWithTypes: string;
beforeAll(async () => {
  app = await startTestApp();
  const tenant = await createTenant(app.orm);
  key = tenant.key;
  await insertEvents(app.orm, tenant.organization.id, 100, { ticketTypesEach: 3 });
  slugWithTypes = (await insertEvents(app.orm, tenant.organization.id, 1, { ticketTypesEach: 25 }))[0].slug;
});
afterAll(() => app.close());

/**
 * The SQL statements one call's operation costs, after a call that warms the key cache (and its
 * lastUsedAt write). The key cache lives 500 ms: a slow machine can still see one key lookup in the
 * window, so statements on api_keys (authentication, not the operation) are left out of the count.
 */
async function statementsOf(call: () => Promise<unknown>): Promise<string[]> {
  await eventApi(app.client, key, 'rest').list({ limit: 1 });
  app.sql.reset();
  await call();
  const statements = app.sql.statements.filter((statement) => !/\bapi_keys\b/.test(statement));
  // Guards against a silent statement log: every one of these calls reads the database.
  expect(statements.length).toBeGreaterThan(0);
  return statements;
}

test.each([1, 20, 100])('a REST list page of %i events costs one statement, total included', async (limit) => {
  let outcome: any;
  const statements = await statementsOf(async () => {
    outcome = await eventApi(app.client, key, 'rest').list({ limit });
  });
  expect(outcome.data.events).toHaveLength(limit);
  expect(outcome.data.total).toBe(101);
  expect(statements).toHaveLength(1);
});

test('a GraphQL list page (without ticket types) costs one statement, total included', async () => {
  let outcome: any;
  const statements = await statementsOf(async () => {
    outcome = await eventApi(app.client, key, 'graphql').list({ limit: 20 });
  });
  expect(outcome.data.events).toHaveLength(20);
  expect(outcome.data.total).toBe(101);
  expect(statements).toHaveLength(1);
});

test('a page past the end is one statement too, and still carries the total, through both doors', async () => {
  for (const door of ['rest', 'graphql'] as const) {
    let outcome: any;
    const statements = await statementsOf(async () => {
      outcome = await eventApi(app.client, key, door).list({ page: 50, limit: 20 });
    });
    expect({ door, events: outcome.data.events, total: outcome.data.total }).toEqual({ door, events: [], total: 101 });
    expect(statements).toHaveLength(1);
  }
});

test('a full event with 25 ticket types costs one statement, through both doors', async () => {
  for (const door of ['rest', 'graphql'] as const) {
    let outcome: any;
    const statements = await statementsOf(async () => {
      outcome = await eventApi(app.client, key, door).get(slugWithTypes);
    });
    expect(outcome.data.ticketTypes).toHaveLength(25);
    expect(statements).toHaveLength(1);
  }
});

test('a GraphQL list asking for the ticket types of every event batches them: constant and small', async () => {
  const query = 'query($limit: Int) { events(limit: $limit) { total events { slug ticketTypes { id name price } } } }';
  const counts: number[] = [];
  for (const limit of [10, 100]) {
    let body: any;
    const statements = await statementsOf(async () => {
      body = (await app.client.graphql(key, query, { limit })).body;
    });
    expect(body.errors).toBeUndefined();
    expect(body.data.events.events).toHaveLength(limit);
    const typeCounts = body.data.events.events.map((event: { ticketTypes: unknown[] }) => event.ticketTypes.length);
    expect(typeCounts.reduce((sum: number, n: number) => sum + n, 0)).toBeGreaterThanOrEqual(3 * (limit - 1));
    counts.push(statements.length);
  }
  expect(counts).toEqual([2, 2]);
});
