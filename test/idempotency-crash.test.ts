import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openDatabase } from '../src/schema/database';
import { createTestDatabase, describeOnPostgres, type TestDatabase } from './helpers/database';
import { createTenant, eventInput } from './helpers/factories';
import { errorCodeOf } from './helpers/idempotency';
import { HttpsClient, type HttpResponse } from './helpers/https-client';
import { spawnServer, type ServerProcess } from './helpers/spawned-server';

// D17 "nothing retried happens twice" across a crash. The compiled server runs as a real
// process with the test-only hook EVENT_SERVICE_TEST_KILL_AFTER_COMMIT (or _BEFORE_COMMIT) = an
// Idempotency-Key: it SIGKILLs itself right after (before) that key's unit of work commits, so the
// answer is never stored and the key stays RUNNING. A new process on the same database takes the key
// over once its lease has ended (the test ends the lease in the database instead of waiting 120 s)
// and must answer with what committed, or run the change once when nothing did.
jest.setTimeout(120_000);

const CREATE_BOOKING = 'mutation Book($input: CreateBookingInput!) { createBooking(input: $input) { id quantity status eventSlug ticketType { id sold } } }';

describeOnPostgres('the crash tests spawn servers on a PostgreSQL server')('Idempotency-Key across a crash (recovery points)', () => {
  let database: TestDatabase;
  let orm: MikroORM;
  let apiKey: string;
  let organizationId: string;
  let env: Record<string, string>;
  let server: { process: ServerProcess; client: HttpsClient; dataDir: string } | undefined;
  let slug: string;
  let ticketTypeId: string;

  /** A server process on the test's database; `crash` arms the test-only hook. */
  async function start(crash: Record<string, string> = {}): Promise<HttpsClient> {
    await stop();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-crash-'));
    const spawned = await spawnServer({ ...env, ...crash, DATA_DIR: dataDir });
    server = { process: spawned, client: new HttpsClient(spawned.url, spawned.ca), dataDir };
    return server.client;
  }
  async function stop(): Promise<void> {
    if (!server) return;
    const { process, client, dataDir } = server;
    server = undefined;
    client.close();
    if (process.child.exitCode === null && process.child.signalCode === null) process.child.kill('SIGTERM');
    await process.exit;
    rmSync(dataDir, { recursive: true, force: true });
  }

  const sql = <T>(text: string, params: unknown[] = []) => orm.em.fork().getConnection().execute<T[]>(text, params);
  const counts = async () => {
    const [row] = await sql<{ registration_count: number; sold: number; bookings: string }>(
      `select e.registration_count, t.sold, (select count(*) from bookings b where b.event_id = e.id) as bookings
       from events e join ticket_types t on t.event_id = e.id where e.organization_id = ? and e.slug = ?`,
      [organizationId, slug],
    );
    return { registrationCount: row.registration_count, sold: row.sold, bookings: Number(row.bookings) };
  };
  const record = async (key: string) => {
    const [row] = await sql<{ state: string; recovery_points: Record<string, string> | null; actor: unknown }>(
      'select state, recovery_points, actor from idempotency_keys where organization_id = ? and key = ?',
      [organizationId, key],
    );
    return row;
  };
  /** What 120 s would do: the lease of the crashed request ends. */
  const endLease = (key: string) => sql(`update idempotency_keys set locked_until = now() - interval '1 second' where organization_id = ? and key = ?`, [organizationId, key]);

  const headers = (idempotencyKey: string) => ({ authorization: `Bearer ${apiKey}`, 'idempotency-key': idempotencyKey });
  const book = (client: HttpsClient, idempotencyKey: string, quantity = 2) =>
    client.request('POST', '/graphql', {
      headers: headers(idempotencyKey),
      json: { query: CREATE_BOOKING, variables: { input: { eventSlug: slug, ticketTypeId, quantity, attendeeEmail: 'ada@example.com', attendeeName: 'Ada' } } },
    });
  /** The request the server dies on: no answer, the process killed by its own SIGKILL. */
  async function expectCrash(request: Promise<HttpResponse>): Promise<void> {
    await expect(request).rejects.toThrow();
    expect(await server!.process.exit).toEqual({ code: null, signal: 'SIGKILL' });
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await openDatabase({ clientUrl: database.url });
    ({ key: apiKey, organization: { id: organizationId } } = await createTenant(orm));
    // Every process shares the server key, as instances do: the recovery points are sealed with it.
    env = { DATABASE_URL: database.url, WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') };
    const client = await start();
    const input = eventInput({ capacity: 100, ticketTypes: [{ name: 'Standard', price: 10, currency: 'EUR', quantity: 50 }] });
    slug = input.slug as string;
    const created = await client.request('POST', '/graphql', {
      headers: { authorization: `Bearer ${apiKey}` },
      json: {
        query: 'mutation($input: CreateEventInput!, $slug: String!) { createEvent(input: $input) { ticketTypes { id } } updateEvent(slug: $slug, input: { status: PUBLISHED }) { status } }',
        variables: { input, slug },
      },
    });
    expect(created.body.errors).toBeUndefined();
    ticketTypeId = created.body.data.createEvent.ticketTypes[0].id;
  }, 90_000);
  afterAll(async () => {
    await stop();
    await orm?.close(true);
    await database?.drop();
  });

  test('GraphQL createBooking: killed after COMMIT, the retry answers the same booking and counts its seats once', async () => {
    const key = randomUUID();
    const before = await counts();
    await expectCrash(book(await start({ EVENT_SERVICE_TEST_KILL_AFTER_COMMIT: key }), key));

    // The booking committed with its recovery point; its answer was never stored.
    expect(await counts()).toEqual({ registrationCount: before.registrationCount + 2, sold: before.sold + 2, bookings: before.bookings + 1 });
    const crashed = await record(key);
    expect(crashed.state).toBe('RUNNING');
    expect(Object.keys(crashed.recovery_points ?? {})).toEqual(['0']);
    expect(crashed.actor).toMatchObject({ kind: 'api-key', prefix: expect.any(String) });
    const [{ id: bookingId }] = await sql<{ id: string }>('select b.id from bookings b join events e on e.id = b.event_id where e.slug = ? order by b.created_at desc limit 1', [slug]);

    const client = await start();
    expect(errorCodeOf(await book(client, key))).toBe('IDEMPOTENCY_KEY_IN_USE'); // the lease still runs
    await endLease(key);
    const retried = await book(client, key);
    expect(retried.status).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(retried.body).toEqual({
      data: { createBooking: { id: bookingId, quantity: 2, status: 'CONFIRMED', eventSlug: slug, ticketType: { id: ticketTypeId, sold: before.sold + 2 } } },
    });
    expect(await counts()).toEqual({ registrationCount: before.registrationCount + 2, sold: before.sold + 2, bookings: before.bookings + 1 });

    // From now on an ordinary replay of the stored answer.
    const replayed = await book(client, key);
    expect([replayed.status, replayed.text, replayed.headers['idempotent-replayed']]).toEqual([200, retried.text, 'true']);
    expect(await record(key)).toMatchObject({ state: 'DONE' });
    // A different request under the key is still a reuse.
    expect(errorCodeOf(await book(client, key, 3))).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  test('REST POST /v1/events/{slug}/bookings: killed after COMMIT, the retry answers the same booking (201, same Location), booked once', async () => {
    const key = randomUUID();
    const before = await counts();
    const bookOverRest = (client: HttpsClient) =>
      client.request('POST', `/v1/events/${slug}/bookings`, {
        headers: headers(key),
        json: { ticketTypeId, quantity: 2, attendeeEmail: 'ada@example.com', attendeeName: 'Ada' },
      });
    await expectCrash(bookOverRest(await start({ EVENT_SERVICE_TEST_KILL_AFTER_COMMIT: key })));

    // The key was claimed first; the booking committed with its recovery point; its answer was never stored.
    expect(await counts()).toEqual({ registrationCount: before.registrationCount + 2, sold: before.sold + 2, bookings: before.bookings + 1 });
    const crashed = await record(key);
    expect([crashed.state, Object.keys(crashed.recovery_points ?? {})]).toEqual(['RUNNING', ['0']]);
    const [{ id: bookingId }] = await sql<{ id: string }>('select b.id from bookings b join events e on e.id = b.event_id where e.slug = ? order by b.created_at desc limit 1', [slug]);

    const client = await start();
    await endLease(key);
    const retried = await bookOverRest(client);
    expect([retried.status, retried.headers['idempotent-replayed'], retried.headers.location]).toEqual([201, undefined, `/v1/bookings/${bookingId}`]);
    expect(retried.body).toMatchObject({ id: bookingId, eventSlug: slug, ticketTypeId, quantity: 2, status: 'CONFIRMED' });
    expect(retried.body).toEqual((await client.request('GET', `/v1/bookings/${bookingId}`, { headers: { authorization: `Bearer ${apiKey}` } })).body);
    expect(await counts()).toEqual({ registrationCount: before.registrationCount + 2, sold: before.sold + 2, bookings: before.bookings + 1 });
  });

  test('REST POST /v1/events: killed after COMMIT, the retry answers the same event (201, same id and Location), created once', async () => {
    const key = randomUUID();
    const input = eventInput();
    const create = (client: HttpsClient) => client.request('POST', '/v1/events', { headers: headers(key), json: input });
    await expectCrash(create(await start({ EVENT_SERVICE_TEST_KILL_AFTER_COMMIT: key })));
    const rows = () => sql<{ id: string }>('select id from events where organization_id = ? and slug = ?', [organizationId, input.slug]);
    const [{ id: eventId }] = await rows();

    const client = await start();
    await endLease(key);
    const retried = await create(client);
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({ id: eventId, slug: input.slug, title: input.title, status: 'DRAFT' });
    expect(retried.headers.location).toBe(`/v1/events/${String(input.slug)}`);
    expect(await rows()).toHaveLength(1);
    const replayed = await create(client);
    expect([replayed.status, replayed.text, replayed.headers['idempotent-replayed']]).toEqual([201, retried.text, 'true']);
  });

  test('killed before COMMIT: nothing committed, and the retry books once', async () => {
    const key = randomUUID();
    const before = await counts();
    await expectCrash(book(await start({ EVENT_SERVICE_TEST_KILL_BEFORE_COMMIT: key }), key));
    expect(await counts()).toEqual(before);
    // The key was claimed before the operation; nothing committed under it.
    expect(await record(key)).toMatchObject({ state: 'RUNNING', recovery_points: null });

    const client = await start();
    await endLease(key);
    const retried = await book(client, key);
    expect(retried.status).toBe(200);
    expect(retried.body.data.createBooking).toMatchObject({ quantity: 2, status: 'CONFIRMED' });
    expect(await counts()).toEqual({ registrationCount: before.registrationCount + 2, sold: before.sold + 2, bookings: before.bookings + 1 });
  });
});
