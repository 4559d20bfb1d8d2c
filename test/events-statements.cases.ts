import { bookingInput, CREATE_BOOKING, createPublishedEvent, ticket } from './helpers/bookings';
import { createTenant, eventInput } from './helpers/factories';
import { CREATE_ENDPOINT } from './helpers/webhook-receiver';
import { eventApi } from './helpers/event-api';
import { insertEvents } from './helpers/event-rows';
import { useTestApp } from './helpers/use-test-app';

// Performance guards: no N+1. A statement count, not a timing, so it cannot flake. The counts
// are docs/architecture.md's promise ("The hot read path", "Reads as fixed SQL"): a list page one statement with its
// total (a page past the end still carries the total), a full event with its ticket types one, the
// ticket types of a whole GraphQL page one more (1 / 1 / 2), through both doors.
// They change legitimately only when that promise is changed in docs/architecture.md first, never to let a read grow.
const ctx = useTestApp({}, { tenant: true });
let slugWithTypes: string;
beforeAll(async () => {
  await insertEvents(ctx.app.orm, ctx.organizationId, 100, { ticketTypesEach: 3 });
  slugWithTypes = (await insertEvents(ctx.app.orm, ctx.organizationId, 1, { ticketTypesEach: 25 }))[0].slug;
});

/**
 * The SQL statements one call's operation costs, after a call that warms the key cache (and its
 * lastUsedAt write). The key cache lives 500 ms: a slow machine can still see one key lookup in the
 * window, so statements on api_keys (authentication, not the operation) are left out of the count.
 */
async function statementsOf(call: () => Promise<unknown>): Promise<string[]> {
  await eventApi(ctx.app.client, ctx.key, 'rest').list({ limit: 1 });
  ctx.app.sql.reset();
  await call();
  const statements = ctx.app.sql.statements.filter((statement) => !/\bapi_keys\b/.test(statement));
  // Guards against a silent statement log: every one of these calls reads the database.
  expect(statements.length).toBeGreaterThan(0);
  return statements;
}

test.each([1, 20, 100])('performance guard: a REST list page of %i events costs one statement, total included', async (limit) => {
  let outcome: any;
  const statements = await statementsOf(async () => {
    outcome = await eventApi(ctx.app.client, ctx.key, 'rest').list({ limit });
  });
  expect(outcome.data.events).toHaveLength(limit);
  expect(outcome.data.total).toBe(101);
  expect(statements).toHaveLength(1);
});

test('performance guard: a GraphQL list page (without ticket types) costs one statement, total included', async () => {
  let outcome: any;
  const statements = await statementsOf(async () => {
    outcome = await eventApi(ctx.app.client, ctx.key, 'graphql').list({ limit: 20 });
  });
  expect(outcome.data.events).toHaveLength(20);
  expect(outcome.data.total).toBe(101);
  expect(statements).toHaveLength(1);
});

test('performance guard: a page past the end is one statement too, and still carries the total, through both doors', async () => {
  for (const door of ['rest', 'graphql'] as const) {
    let outcome: any;
    const statements = await statementsOf(async () => {
      outcome = await eventApi(ctx.app.client, ctx.key, door).list({ page: 50, limit: 20 });
    });
    expect({ door, events: outcome.data.events, total: outcome.data.total }).toEqual({ door, events: [], total: 101 });
    expect(statements).toHaveLength(1);
  }
});

test('performance guard: a full event with 25 ticket types costs one statement, through both doors', async () => {
  for (const door of ['rest', 'graphql'] as const) {
    let outcome: any;
    const statements = await statementsOf(async () => {
      outcome = await eventApi(ctx.app.client, ctx.key, door).get(slugWithTypes);
    });
    expect(outcome.data.ticketTypes).toHaveLength(25);
    expect(statements).toHaveLength(1);
  }
});

// D20: both doors show heldCount, checkedInCount and each ticket type's held. They are read in the
// event's own statement, also where there is something to count (holds, a check-in, counts kept in
// inventory slots): the get and the list stay one statement each.
test('performance guard: an event with holds and a check-in, counted in inventory slots: its counts in the same one statement, get and list, both doors', async () => {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: null, ticketTypes: [ticket(), ticket({ name: 'Late' })] });
  const book = async (input: Record<string, unknown>) => {
    const answer = await ctx.app.client.graphql(ctx.key, CREATE_BOOKING, { input: bookingInput(event.slug, { ticketTypeId: event.ticketTypes[1].id, ...input }) });
    expect(answer.body.errors).toBeUndefined();
    return answer.body.data.createBooking.id as string;
  };
  await book({ quantity: 2, hold: true });
  const arrived = await book({ quantity: 1 });
  const checkIn = await ctx.app.client.graphql(ctx.key, 'mutation($id: ID!) { checkInBooking(id: $id) { id } }', { id: arrived });
  expect(checkIn.body.errors).toBeUndefined();
  const counts = { registrationCount: 1, heldCount: 2, checkedInCount: 1 };
  for (const door of ['rest', 'graphql'] as const) {
    let outcome: any;
    const read = await statementsOf(async () => {
      outcome = await eventApi(ctx.app.client, ctx.key, door).get(event.slug);
    });
    expect({ door, ...outcome.data, ticketTypes: outcome.data.ticketTypes.map((type: { held: number }) => type.held) }).toMatchObject({ door, ...counts, ticketTypes: [0, 2] });
    expect(read).toHaveLength(1);
    const listed = await statementsOf(async () => {
      outcome = await eventApi(ctx.app.client, ctx.key, door).list({ limit: 1 });
    });
    expect({ door, ...outcome.data.events[0] }).toMatchObject({ door, slug: event.slug, ...counts });
    expect(listed).toHaveLength(1);
  }
});

test('performance guard: a GraphQL list asking for the ticket types of every event batches them: constant and small', async () => {
  const query = 'query($limit: Int) { events(limit: $limit) { total events { slug ticketTypes { id name price } } } }';
  const counts: number[] = [];
  for (const limit of [10, 100]) {
    let body: any;
    const statements = await statementsOf(async () => {
      body = (await ctx.app.client.graphql(ctx.key, query, { limit })).body;
    });
    expect(body.errors).toBeUndefined();
    expect(body.data.events.events).toHaveLength(limit);
    const typeCounts = body.data.events.events.map((event: { ticketTypes: unknown[] }) => event.ticketTypes.length);
    expect(typeCounts.reduce((sum: number, n: number) => sum + n, 0)).toBeGreaterThanOrEqual(3 * (limit - 1));
    counts.push(statements.length);
  }
  expect(counts).toEqual([2, 2]);
});

// Performance guards for the write path: the statements of each write, exact. Without an
// Idempotency-Key a write that can be one statement is one (no BEGIN / COMMIT): the change, its ticket
// types and its webhook message (the outbox rows, D18) in one statement, whether or not an endpoint
// wants the message, and its answer built from what the statement wrote (no read after the write).
// What these statements replaced (the ORM's flush, then enqueueWebhook) took: create 6 statements (8
// with an endpoint), update 9, a no-op update 4, delete 8, addTicketType 5, updateTicketType and removeTicketType 6.
// D21: a change that can free seats (a status or capacity change of an event, a ticket type's quantity)
// first asks whether the event has anyone waiting (WAITING, one index-only read); only then does it
// run in a transaction with the offers. (The expiry sweep's own look-ups are not counted: test-app.ts.)
const WAITING = 'select e.id from';
// They change legitimately when a write is redesigned on purpose (a decision adds or merges a statement), never for a read added around it.
describe('performance guard: writes, statement by statement', () => {
  const CREATE_TYPES = [
    { name: 'Early', price: 10, currency: 'EUR', quantity: 100 },
    { name: 'Regular', price: 20.5, currency: 'EUR', quantity: 200 },
    { name: 'Late', price: 0, currency: 'EUR', quantity: 50 },
  ];
  const ADD = 'mutation($eventSlug: String!, $input: TicketTypeInput!) { addTicketType(eventSlug: $eventSlug, input: $input) { id sold } }';
  const UPDATE = 'mutation($id: ID!, $input: TicketTypeUpdateInput!) { updateTicketType(id: $id, input: $input) { id quantity } }';
  const REMOVE = 'mutation($id: ID!) { removeTicketType(id: $id) { id } }';
  let hooked: { key: string };

  beforeAll(async () => {
    const tenant = await createTenant(ctx.app.orm);
    const endpoint = await ctx.app.client.graphql(tenant.key, CREATE_ENDPOINT, { input: { url: 'https://hooks.example.com/in' } });
    expect(endpoint.body.errors).toBeUndefined();
    hooked = tenant;
  });

  /**
   * The statements of `call` (which checks its own outcome), as statementsOf counts them; without the
   * NOTIFY that wakes other instances' webhook workers after a commit (once per burst of commits, on
   * its own connection: not the request's).
   */
  async function writeStatements(apiKey: string, call: () => Promise<void>): Promise<string[]> {
    await eventApi(ctx.app.client, apiKey, 'rest').list({ limit: 1 });
    ctx.app.sql.reset();
    await call();
    return ctx.app.sql.statements.filter((statement) => !/\bapi_keys\b/.test(statement) && !/\bpg_notify\(/.test(statement));
  }

  /** The leading words of each statement: what it is, for a readable failure. */
  const shapes = (statements: string[]) => statements.map((statement) => statement.replace(/^\[query\] /, '').split(/\s+/).slice(0, 3).join(' '));

  // An event small enough to keep its count on its row (inventory slots: below).
  async function created(apiKey: string, capacity: number | null = 100): Promise<Record<string, any>> {
    const outcome = await eventApi(ctx.app.client, apiKey, 'rest').create(eventInput({ ticketTypes: CREATE_TYPES, capacity }));
    expect(outcome.status).toBe(201);
    expect(outcome.data.ticketTypes).toHaveLength(3);
    return outcome.data;
  }

  test.each([
    ['without an endpoint', () => ctx.key],
    ['with an endpoint that wants the message', () => hooked.key],
  ])('creating an event with 3 ticket types, %s, is one statement', async (_name, apiKey) => {
    const statements = await writeStatements(apiKey(), async () => void (await created(apiKey())));
    expect(shapes(statements)).toEqual(['with created as']);
  });

  test('creating an event with an Idempotency-Key: the claim, the transaction with its recovery point, the stored answer', async () => {
    const statements = await writeStatements(ctx.key, async () => {
      const response = await ctx.app.client.request('POST', '/v1/events', {
        headers: { authorization: `Bearer ${ctx.key}`, 'idempotency-key': `statements-${Date.now()}` },
        json: eventInput({ ticketTypes: CREATE_TYPES }),
      });
      expect(response.status).toBe(201);
    });
    expect(shapes(statements)).toEqual([
      'insert into idempotency_keys',
      'begin',
      'with created as',
      'update idempotency_keys set',
      'commit',
      // The stored answer (batched with the answers of other requests of the same turn).
      'update idempotency_keys k',
    ]);
  });

  test.each([
    ['a title', { title: 'Renamed' }],
    ['the status to PUBLISHED', { status: 'PUBLISHED' }],
  ])('updating %s, with an endpoint: the read, then one statement', async (_name, input) => {
    const event = await created(hooked.key);
    const statements = await writeStatements(hooked.key, async () => {
      const outcome = await eventApi(ctx.app.client, hooked.key, 'rest').update(event.slug, input);
      expect(outcome.status).toBe(200);
      expect(outcome.data.ticketTypes).toEqual(event.ticketTypes);
    });
    const waiting = 'status' in input ? [WAITING] : [];
    expect(shapes(statements)).toEqual([...waiting, 'select e.id, e.organization_id', 'with changed as']);
    // A publication's audit entry (D26) is a CTE of that one statement; a title change has none.
    expect(statements.at(-1)!.includes('audit_entry as (')).toBe('status' in input);
  });

  test('an event whose capacity calls for inventory slots: publishing makes them in the same transaction, a delete locks them first', async () => {
    const event = await created(hooked.key, null);
    const publishing = await writeStatements(hooked.key, async () => {
      expect((await eventApi(ctx.app.client, hooked.key, 'rest').update(event.slug, { status: 'PUBLISHED' })).status).toBe(200);
    });
    expect(shapes(publishing)).toEqual([WAITING, 'select e.id, e.organization_id', 'begin', 'with changed as', 'with ev as', 'commit']);
    const renaming = await writeStatements(hooked.key, async () => {
      expect((await eventApi(ctx.app.client, hooked.key, 'rest').update(event.slug, { title: 'Renamed' })).status).toBe(200);
    });
    expect(shapes(renaming)).toEqual(['select e.id, e.organization_id', 'with changed as']);
    const removal = await writeStatements(hooked.key, async () => {
      expect((await ctx.app.client.rest('DELETE', `/v1/events/${event.slug}`, hooked.key)).status).toBe(204);
    });
    expect(shapes(removal)).toEqual(['with deleted as', 'select id, slots', 'begin', 'select slot, seats,', 'with deleted as', 'commit']);
  });

  test('updating and deleting with an Idempotency-Key: the same statements in a transaction with the recovery point, nothing flushed', async () => {
    const event = await created(hooked.key);
    const keyed = (method: string, path: string, json?: unknown) =>
      ctx.app.client.request(method, path, {
        headers: { authorization: `Bearer ${hooked.key}`, 'idempotency-key': `statements-${method}-${event.slug}` },
        json,
      });
    const update = await writeStatements(hooked.key, async () => {
      const response = await keyed('PUT', `/v1/events/${event.slug}`, { title: 'Renamed', status: 'PUBLISHED' });
      expect(response.status).toBe(200);
    });
    const removal = await writeStatements(hooked.key, async () => {
      await keyed('PUT', `/v1/events/${event.slug}`, { status: 'CANCELLED' });
      ctx.app.sql.reset();
      expect((await keyed('DELETE', `/v1/events/${event.slug}`)).status).toBe(204);
    });
    const claimed = (statements: string[]) => ['insert into idempotency_keys', 'begin', ...statements, 'update idempotency_keys set', 'commit', 'update idempotency_keys k'];
    expect(shapes(update)).toEqual(claimed([WAITING, 'select e.id, e.organization_id', 'with changed as']));
    expect(shapes(removal)).toEqual(claimed(['with deleted as']));
  });

  test('an update that changes nothing is the read alone', async () => {
    const event = await created(hooked.key);
    const statements = await writeStatements(hooked.key, async () => {
      const outcome = await eventApi(ctx.app.client, hooked.key, 'rest').update(event.slug, { title: event.title });
      expect(outcome.data).toEqual(event);
    });
    expect(shapes(statements)).toEqual(['select e.id, e.organization_id']);
  });

  test('deleting an event, with an endpoint, is one statement', async () => {
    const event = await created(hooked.key);
    const statements = await writeStatements(hooked.key, async () => {
      const outcome = await eventApi(ctx.app.client, hooked.key, 'rest').delete(event.slug);
      expect(outcome.status).toBe(204);
    });
    expect(shapes(statements)).toEqual(['with deleted as']);
    expect(statements[0]).toContain('audit_entry as (');
  });

  test('adding a ticket type locks the event, then counts and inserts; updating and removing one are one statement each', async () => {
    const event = await created(ctx.key);
    let id = '';
    const add = await writeStatements(ctx.key, async () => {
      const answer = await ctx.app.client.graphql(ctx.key, ADD, { eventSlug: event.slug, input: { name: 'VIP', price: 99, currency: 'EUR', quantity: 5 } });
      expect(answer.body.errors).toBeUndefined();
      id = answer.body.data.addTicketType.id;
    });
    expect(shapes(add)).toEqual(['begin', 'select id, slots', 'with counted as', 'commit']);
    const update = await writeStatements(ctx.key, async () => {
      const answer = await ctx.app.client.graphql(ctx.key, UPDATE, { id, input: { quantity: 7 } });
      expect(answer.body.data).toEqual({ updateTicketType: { id, quantity: 7 } });
    });
    expect(shapes(update)).toEqual([WAITING, 'with locked as']);
    const remove = await writeStatements(ctx.key, async () => {
      const answer = await ctx.app.client.graphql(ctx.key, REMOVE, { id });
      expect(answer.body.data).toEqual({ removeTicketType: { id } });
    });
    expect(shapes(remove)).toEqual(['with locked as']);
  });
});
