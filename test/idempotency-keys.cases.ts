import { randomUUID } from 'node:crypto';
import { DEFAULT_DATABASE_TIMEOUTS } from '../src/foundation/config';
import { openStatementPool } from '../src/platform/db/statement-pool';
import { IdempotencyKeyStore } from '../src/platform/idempotency/idempotency-key.store';
import { CREATE_BOOKING, createPublishedEvent } from './helpers/bookings';
import { createApiKey, createTenant, eventInput } from './helpers/factories';
import { storedEventCount } from './helpers/event-rows';
import { createdStatus, createWithKey, errorCodeOf, type IdempotencyDoor } from './helpers/idempotency';
import { useTestApp } from './helpers/use-test-app';

// D17: Idempotency-Key on REST writes and GraphQL mutations, stored in PostgreSQL.
const ctx = useTestApp({}, { tenant: true });

const count = (slug: unknown) => storedEventCount(ctx.app.orm, ctx.organizationId, { slug });
const DOORS: IdempotencyDoor[] = ['rest', 'graphql'];

describe.each(DOORS)('through %s', (door) => {
  test('a retry with the same key and request replays the stored answer; nothing runs twice', async () => {
    const idempotencyKey = randomUUID();
    const input = eventInput();
    const first = await createWithKey(ctx.app.client, door, ctx.key, idempotencyKey, input);
    expect(first.status).toBe(createdStatus(door));
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await createWithKey(ctx.app.client, door, ctx.key, idempotencyKey, input);
    expect(retry.status).toBe(first.status);
    expect(retry.text).toBe(first.text);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers.location).toBe(first.headers.location);
    expect(retry.headers['content-type']).toBe(first.headers['content-type']);
    expect(retry.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    if (door === 'rest') expect(retry.headers.location).toBe(`/v1/events/${input.slug}`);
    expect(await count(input.slug)).toBe(1);
    // The stored answer is sealed at rest: it may hold a secret shown once (a new key, a signing secret).
    const [stored] = await ctx.app.orm.em
      .fork()
      .getConnection()
      .execute<{ response_body: string }[]>('select response_body from idempotency_keys where organization_id = ? and key = ?', [ctx.organizationId, idempotencyKey]);
    expect(stored.response_body).not.toContain(input.slug);
    // Sealed under the server secret's key for stored answers (D24): `v2:<key id>:…`.
    expect(stored.response_body).toMatch(/^v2:[0-9a-f]{12}:/);
  });

  test('the same key with another request is 422 IDEMPOTENCY_KEY_REUSED, and nothing runs', async () => {
    const idempotencyKey = randomUUID();
    const input = eventInput();
    expect((await createWithKey(ctx.app.client, door, ctx.key, idempotencyKey, input)).status).toBe(createdStatus(door));
    const other = eventInput();
    const reused = await createWithKey(ctx.app.client, door, ctx.key, idempotencyKey, other);
    expect(reused.status).toBe(422);
    expect(errorCodeOf(reused)).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(reused.headers['x-request-id']).toBeDefined();
    expect(await count(other.slug)).toBe(0);
    // Not stored: the original request still replays.
    expect((await createWithKey(ctx.app.client, door, ctx.key, idempotencyKey, input)).headers['idempotent-replayed']).toBe('true');
  });

  test('20 concurrent requests with one key: one execution; the others replay it or get 409 IN_USE with Retry-After', async () => {
    const idempotencyKey = randomUUID();
    const input = eventInput();
    const responses = await Promise.all(Array.from({ length: 20 }, () => createWithKey(ctx.app.client, door, ctx.key, idempotencyKey, input)));
    expect(await count(input.slug)).toBe(1);
    const ran = responses.filter((response) => response.status === createdStatus(door));
    const inUse = responses.filter((response) => response.status === 409);
    expect(ran.length + inUse.length).toBe(20);
    expect(ran.filter((response) => response.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(new Set(ran.map((response) => response.text)).size).toBe(1);
    for (const response of inUse) {
      expect(errorCodeOf(response)).toBe('IDEMPOTENCY_KEY_IN_USE');
      expect(response.headers['retry-after']).toBe('1');
    }
  });

  test('a 400 decided by the rules is stored and replayed', async () => {
    const idempotencyKey = randomUUID();
    const input = eventInput({ title: '' });
    const first = await createWithKey(ctx.app.client, door, ctx.key, idempotencyKey, input);
    expect(errorCodeOf(first)).toBe('VALIDATION_ERROR');
    const retry = await createWithKey(ctx.app.client, door, ctx.key, idempotencyKey, input);
    expect([retry.status, retry.text, retry.headers['idempotent-replayed']]).toEqual([first.status, first.text, 'true']);
  });

  test('a 403 (decided before the operation) is not stored: the retry runs for real', async () => {
    const { key: readOnly } = await createApiKey(ctx.app.orm, ctx.organizationId, { permissions: ['events:read'] });
    const idempotencyKey = randomUUID();
    const input = eventInput();
    const refused = await createWithKey(ctx.app.client, door, readOnly, idempotencyKey, input);
    expect(refused.status).toBe(403);
    const retry = await createWithKey(ctx.app.client, door, ctx.key, idempotencyKey, input);
    expect(retry.status).toBe(createdStatus(door));
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await count(input.slug)).toBe(1);
  });

  test.each([['x'.repeat(256)], ['caf\u00e9'], ['tab\there']])('a malformed key (%#) is 400 on field Idempotency-Key; nothing runs', async (idempotencyKey) => {
    const input = eventInput();
    const response = await createWithKey(ctx.app.client, door, ctx.key, idempotencyKey, input);
    expect(response.status).toBe(400);
    const details = response.body?.error?.details ?? response.body?.errors?.[0]?.extensions?.details;
    expect(details.errors).toEqual([{ field: 'Idempotency-Key', message: expect.any(String) }]);
    expect(await count(input.slug)).toBe(0);
  });

  test('keys are scoped to the organization: another organization with the same key runs its own request', async () => {
    const other = await createTenant(ctx.app.orm);
    const idempotencyKey = randomUUID();
    const input = eventInput();
    expect((await createWithKey(ctx.app.client, door, ctx.key, idempotencyKey, input)).status).toBe(createdStatus(door));
    const theirs = await createWithKey(ctx.app.client, door, other.key, idempotencyKey, input);
    expect(theirs.status).toBe(createdStatus(door));
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(await storedEventCount(ctx.app.orm, other.organization.id, { slug: input.slug })).toBe(1);
  });
});

test('REST DELETE and PUT replay their answers (204, 404) instead of running again', async () => {
  const input = eventInput();
  await ctx.app.client.rest('POST', '/v1/events', ctx.key, input);
  const idempotencyKey = randomUUID();
  const headers = { authorization: `Bearer ${ctx.key}`, 'idempotency-key': idempotencyKey };
  const deleted = await ctx.app.client.request('DELETE', `/v1/events/${input.slug}`, { headers });
  expect(deleted.status).toBe(204);
  const again = await ctx.app.client.request('DELETE', `/v1/events/${input.slug}`, { headers });
  expect([again.status, again.text, again.headers['idempotent-replayed']]).toEqual([204, '', 'true']);

  const missing = { ...headers, 'idempotency-key': randomUUID() };
  const first = await ctx.app.client.request('PUT', '/v1/events/no-such-event', { headers: missing, json: { title: 'x' } });
  expect(first.body.error.code).toBe('EVENT_NOT_FOUND');
  await ctx.app.client.rest('POST', '/v1/events', ctx.key, eventInput({ slug: 'no-such-event' }));
  const replayed = await ctx.app.client.request('PUT', '/v1/events/no-such-event', { headers: missing, json: { title: 'x' } });
  expect([replayed.status, replayed.headers['idempotent-replayed']]).toEqual([404, 'true']);
});

test('a retried booking books once', async () => {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 10 });
  const idempotencyKey = randomUUID();
  const book = () =>
    ctx.app.client.request('POST', '/graphql', {
      headers: { authorization: `Bearer ${ctx.key}`, 'idempotency-key': idempotencyKey },
      json: { query: CREATE_BOOKING, variables: { input: { eventSlug: event.slug, quantity: 2, attendeeEmail: 'a@example.com', attendeeName: 'A' } } },
    });
  const first = await book();
  expect(first.body.data.createBooking.quantity).toBe(2);
  const retry = await book();
  expect(retry.headers['idempotent-replayed']).toBe('true');
  expect(retry.body.data.createBooking.id).toBe(first.body.data.createBooking.id);
  const stored = await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, ctx.key);
  expect(stored.body.registrationCount).toBe(2);
});

test('keyed bookings sent together (claimed and answered in batches) each book once and replay their own answer', async () => {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 100 });
  const keys = Array.from({ length: 30 }, () => randomUUID());
  const book = (idempotencyKey: string, index: number) =>
    ctx.app.client.request('POST', '/graphql', {
      headers: { authorization: `Bearer ${ctx.key}`, 'idempotency-key': idempotencyKey },
      json: { query: CREATE_BOOKING, variables: { input: { eventSlug: event.slug, quantity: 1, attendeeEmail: `a${index}@example.com`, attendeeName: `A ${index}` } } },
    });
  const first = await Promise.all(keys.map(book));
  expect(first.map((response) => response.headers['idempotent-replayed'])).toEqual(keys.map(() => undefined));
  const retries = await Promise.all(keys.map(book));
  expect(retries.map((response) => response.headers['idempotent-replayed'])).toEqual(keys.map(() => 'true'));
  expect(retries.map((response) => response.text)).toEqual(first.map((response) => response.text));
  expect(new Set(first.map((response) => response.body.data.createBooking.id)).size).toBe(30);
  expect((await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, ctx.key)).body.registrationCount).toBe(30);
  // A booking's recovery point is a bare reference (kept unsealed: no secret in it); answers stay sealed.
  const rows = await ctx.app.orm.em
    .fork()
    .getConnection()
    .execute<Array<{ point: string; response_body: string }>>(
      `select recovery_points->>'0' as point, response_body from idempotency_keys where organization_id = ? and key = ?`,
      [ctx.organizationId, keys[0]],
    );
  expect(rows[0].point).toBe(`ref:${JSON.stringify({ $entity: 'BookingEntity', id: first[0].body.data.createBooking.id })}`);
  expect(rows[0].response_body).toMatch(/^v2:[0-9a-f]{12}:/);
});

test('the store claims keys sent in one turn together: distinct keys are each claimed once, a key sent twice once', async () => {
  const pool = openStatementPool(ctx.app.orm, { max: 2, timeouts: DEFAULT_DATABASE_TIMEOUTS, name: 'keys', synchronousCommit: false });
  const store = new IdempotencyKeyStore(ctx.app.orm, 24, { seal: (plain) => `sealed:${plain}`, open: (sealed) => sealed.slice(7) }, pool);
  const [a, b] = [randomUUID(), randomUUID()];
  const [f, other] = ['a'.repeat(64), 'b'.repeat(64)];
  const results = await Promise.all([store.claim(ctx.organizationId, a, f), store.claim(ctx.organizationId, b, f), store.claim(ctx.organizationId, a, f)]);
  expect(results.map((result) => result.kind)).toEqual(['claimed', 'claimed', 'in-use']);
  const held = results.flatMap((result) => (result.kind === 'claimed' ? [result.claim] : []));
  await Promise.all(held.map((claim, index) => store.complete(claim, { status: 200, headers: {}, body: `answer ${index}` })));
  expect(await store.claim(ctx.organizationId, a, f)).toEqual({ kind: 'replay', response: { status: 200, headers: {}, body: 'answer 0' } });
  expect(await store.claim(ctx.organizationId, b, f)).toEqual({ kind: 'replay', response: { status: 200, headers: {}, body: 'answer 1' } });
  expect((await store.claim(ctx.organizationId, b, other)).kind).toBe('reused');
  await pool.close();
});

test('a GraphQL query with the header is not recorded (only mutations are)', async () => {
  const idempotencyKey = randomUUID();
  const query = await ctx.app.client.request('POST', '/graphql', {
    headers: { authorization: `Bearer ${ctx.key}`, 'idempotency-key': idempotencyKey },
    json: { query: '{ events { total } }' },
  });
  expect(query.status).toBe(200);
  const rows = await ctx.app.orm.em.fork().getConnection().execute('select 1 from idempotency_keys where key = ?', [idempotencyKey]);
  expect(rows).toHaveLength(0);
});

describe('lifetime', () => {
  const rowsOf = (idempotencyKey: string) =>
    ctx.app.orm.em
      .fork()
      .getConnection()
      .execute<Array<{ hours: number }>>(
        'select extract(epoch from expires_at - created_at) / 3600 as hours from idempotency_keys where organization_id = ? and key = ?',
        [ctx.organizationId, idempotencyKey],
      );
  const age = (idempotencyKey: string, hours: number) =>
    ctx.app.orm.em
      .fork()
      .getConnection()
      .execute(
        `update idempotency_keys set created_at = created_at - make_interval(hours => ?), expires_at = expires_at - make_interval(hours => ?) where key = ?`,
        [hours, hours, idempotencyKey],
      );

  test('records are kept 24 hours; past that a retry runs for real, and the cleanup deletes them', async () => {
    const expiring = randomUUID();
    const kept = randomUUID();
    const input = eventInput();
    expect((await createWithKey(ctx.app.client, 'rest', ctx.key, expiring, input)).status).toBe(201);
    expect((await createWithKey(ctx.app.client, 'rest', ctx.key, kept, eventInput())).status).toBe(201);
    expect((await rowsOf(expiring)).map((row) => Number(row.hours))).toEqual([24]);

    await age(kept, 23);
    await age(expiring, 25);
    // Expired: the retry runs again (the slug now exists, so the rules refuse it), not a replay.
    const retry = await createWithKey(ctx.app.client, 'rest', ctx.key, expiring, input);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.body.error.details.errors).toEqual([{ field: 'slug', message: expect.any(String) }]);

    await age(expiring, 25);
    const deleted = await new IdempotencyKeyStore(ctx.app.orm, 24, { seal: (plain) => plain, open: (sealed) => sealed }).deleteExpired();
    expect(deleted).toBeGreaterThanOrEqual(1);
    expect(await rowsOf(expiring)).toHaveLength(0);
    expect(await rowsOf(kept)).toHaveLength(1);
  });
});
