import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openDatabase } from '../src/schema/database';
import { bookingInput, CANCEL_BOOKING, CREATE_BOOKING, expectConsistent, storedCounts, ticket } from './helpers/bookings';
import { createTestDatabase, describeOnPostgres, type TestDatabase } from './helpers/database';
import { createTenant, eventInput } from './helpers/factories';
import { HttpsClient, type HttpResponse } from './helpers/https-client';
import { spawnServer, type ServerProcess } from './helpers/spawned-server';

// D7 across processes: two real server processes (the compiled server, each its own pools) sell out
// one event at once, a slotted one and one that keeps its count on its row, with bookings of mixed
// sizes and cancellations: exactly the capacity is sold, every other answer is SOLD_OUT, every count
// exact; and both scan one booking at once for its check-in (D22), by id and by ticket code (D29). (This test found a booking
// statement that computed the new count from the row's own column instead of the value its CTE had
// locked: a concurrent cancellation let it past the capacity.)
jest.setTimeout(180_000);

describeOnPostgres('two server processes need a PostgreSQL server')('bookings from two server processes', () => {
  let database: TestDatabase;
  let orm: MikroORM;
  let key: string;
  const servers: Array<{ process: ServerProcess; client: HttpsClient; dataDir: string }> = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await openDatabase({ clientUrl: database.url });
    ({ key } = await createTenant(orm));
    const secret = randomBytes(32).toString('base64');
    for (let index = 0; index < 2; index += 1) {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-processes-'));
      const spawned = await spawnServer({
        DATABASE_URL: database.url,
        DATA_DIR: dataDir,
        RATE_LIMIT_PER_MINUTE: '100000',
        SECRET_KEY: secret,
        HOLD_EXPIRY_INTERVAL_MS: '300',
      });
      servers.push({ process: spawned, client: new HttpsClient(spawned.url, spawned.ca), dataDir });
    }
  }, 120_000);
  afterAll(async () => {
    for (const { process, client, dataDir } of servers) {
      client.close();
      process.child.kill('SIGTERM');
      await process.exit;
      rmSync(dataDir, { recursive: true, force: true });
    }
    await orm?.close(true);
    await database?.drop();
  });

  test.each([
    ['a slotted event (600 seats)', 600],
    ['an event on its row (300 seats)', 300],
  ])('%s: sold out from both processes, exactly', async (_kind, capacity) => {
    const [one, two] = servers.map((server) => server.client);
    const input = eventInput({ capacity, ticketTypes: [ticket({ quantity: capacity - 100 })] });
    const created = await one.rest('POST', '/v1/events', key, input);
    expect((await two.rest('PUT', `/v1/events/${created.body.slug}`, key, { status: 'PUBLISHED' })).status).toBe(200);
    const ticketTypeId = created.body.ticketTypes[0].id as string;
    const clients = [one, two];
    // A request that gets no answer fails with what the servers said (exit status, error log lines).
    const told = (error: unknown): never => {
      const state = servers.map(({ process }, index) => ({
        server: index,
        exitCode: process.child.exitCode,
        signal: process.child.signalCode,
        stderr: process.stderr().slice(-2000),
        errors: process.logs.filter((line) => /"level":(50|60)/.test(line)).slice(-5),
      }));
      throw new Error(`${error instanceof Error ? error.message : String(error)}; servers: ${JSON.stringify(state)}`);
    };
    const book = (count: number, make: (index: number) => Record<string, unknown>) =>
      Promise.all(Array.from({ length: count }, (_, index) => clients[index % 2].graphql(key, CREATE_BOOKING, { input: make(index) }))).catch(told);

    const first = await book(80, (index) => bookingInput(created.body.slug, { quantity: 2 + (index % 9), ticketTypeId: index % 3 ? ticketTypeId : null }));
    const made = first.filter((response) => response.body?.data?.createBooking?.status === 'CONFIRMED');
    const [, last] = await Promise.all([
      Promise.all(made.slice(0, 8).map((response, index) => clients[index % 2].graphql(key, CANCEL_BOOKING, { id: response.body.data.createBooking.id }))),
      book(capacity, (index) => bookingInput(created.body.slug, { attendeeEmail: `last${index}@example.com` })),
    ]);
    const all: HttpResponse[] = [...first, ...last];
    for (const response of all) {
      expect(response.status).toBe(200);
      expect(['CONFIRMED', 'SOLD_OUT']).toContain(response.body.data?.createBooking?.status ?? response.body.errors[0].extensions.code);
    }
    // Whatever is left after the cancellations goes one seat at a time; then exactly the capacity is sold.
    const counts = await storedCounts(orm, created.body.id);
    expectConsistent(counts);
    const left = capacity - counts.registrationCount;
    const rest = await book(left + 4, (index) => bookingInput(created.body.slug, { attendeeEmail: `rest${index}@example.com` }));
    expect(rest.filter((response) => response.body?.data?.createBooking?.status === 'CONFIRMED')).toHaveLength(left);
    const final = await storedCounts(orm, created.body.id);
    expectConsistent(final);
    expect(final.registrationCount).toBe(capacity);
    expect(final.slots.count > 0).toBe(capacity >= 500);
  });

  // D22: gates on both processes scan the same booking at once; exactly one checks it in.
  test('30 scans of one booking from both processes: exactly one check-in, 29 ALREADY_CHECKED_IN with its time', async () => {
    const [one, two] = servers.map((server) => server.client);
    const created = await one.rest('POST', '/v1/events', key, eventInput({ capacity: 10 }));
    await two.rest('PUT', `/v1/events/${created.body.slug}`, key, { status: 'PUBLISHED' });
    for (let round = 0; round < 3; round += 1) {
      const made = await one.graphql(key, CREATE_BOOKING, { input: bookingInput(created.body.slug) });
      const id = made.body.data.createBooking.id as string;
      const scan = 'mutation($id: ID!) { checkInBooking(id: $id) { id checkedInAt } }';
      const answers = await Promise.all(Array.from({ length: 30 }, (_, index) => [one, two][index % 2].graphql(key, scan, { id })));
      const won = answers.filter((answer) => answer.body.data?.checkInBooking);
      expect(won).toHaveLength(1);
      const checkedInAt = won[0].body.data.checkInBooking.checkedInAt as string;
      const refused = answers.filter((answer) => !answer.body.data?.checkInBooking).map((answer) => answer.body.errors[0].extensions);
      expect(refused).toEqual(Array(29).fill({ code: 'ALREADY_CHECKED_IN', details: { checkedInAt } }));
      const [row] = await orm.em.fork().getConnection().execute('select checked_in_at from bookings where id = ?', [id]);
      expect(new Date(row.checked_in_at).toISOString()).toBe(checkedInAt);
    }
    const counted = await two.graphql(key, 'query($slug: String!) { event(slug: $slug) { checkedInCount } }', { slug: created.body.slug });
    expect(counted.body.data.event.checkedInCount).toBe(3);
  });

  // D29: gates on both processes scan one ticket code at once (REST and GraphQL); exactly one checks it in.
  test('20 scans of one ticket code from both processes: exactly one check-in, 19 ALREADY_CHECKED_IN with its time', async () => {
    const [one, two] = servers.map((server) => server.client);
    const created = await one.rest('POST', '/v1/events', key, eventInput({ capacity: 10 }));
    await two.rest('PUT', `/v1/events/${created.body.slug}`, key, { status: 'PUBLISHED' });
    for (let round = 0; round < 3; round += 1) {
      const made = await two.rest('POST', `/v1/events/${created.body.slug}/bookings`, key, { quantity: 1, attendeeEmail: 'gate@example.com', attendeeName: 'Gate' });
      const { id, ticketCode } = made.body as { id: string; ticketCode: string };
      const scanOn = (client: HttpsClient, index: number) =>
        index % 4 < 2
          ? client.rest('POST', '/v1/check-ins', key, { code: ticketCode, eventSlug: created.body.slug }).then((answer) => ({ status: answer.status, error: answer.body.error }))
          : client
              .graphql(key, 'mutation($code: String!, $slug: String!) { checkInByCode(code: $code, eventSlug: $slug) { id checkedInAt } }', { code: ticketCode, slug: created.body.slug })
              .then((answer) => (answer.body.errors ? { status: 409, error: answer.body.errors[0].extensions } : { status: 200, checkedInAt: answer.body.data.checkInByCode.checkedInAt as string }));
      const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => scanOn([one, two][index % 2], index)));
      const won = answers.filter((answer) => answer.status === 200);
      expect(won).toHaveLength(1);
      const [row] = await orm.em.fork().getConnection().execute('select checked_in_at from bookings where id = ?', [id]);
      const checkedInAt = new Date(row.checked_in_at).toISOString();
      const refused = answers.filter((answer) => answer.status !== 200).map((answer) => [answer.status, answer.error.code, answer.error.details]);
      expect(refused).toEqual(Array(19).fill([409, 'ALREADY_CHECKED_IN', { checkedInAt }]));
    }
  });

  // D20: holds, confirmations, cancellations and expiries (both processes sweep) racing on one event.
  test.each([
    ['a slotted event (600 seats)', 600],
    ['an event on its row (300 seats)', 300],
  ])('%s: holds from both processes never oversell; confirms, cancels and expiries keep every count exact', async (_kind, capacity) => {
    const [one, two] = servers.map((server) => server.client);
    const clients = [one, two];
    const created = await one.rest('POST', '/v1/events', key, eventInput({ capacity, ticketTypes: [ticket({ quantity: capacity - 50 })] }));
    expect((await two.rest('PUT', `/v1/events/${created.body.slug}`, key, { status: 'PUBLISHED' })).status).toBe(200);
    const ticketTypeId = created.body.ticketTypes[0].id as string;
    const HOLD = 'mutation($input: CreateBookingInput!) { createBooking(input: $input) { id status } }';
    const seats = capacity / 30;
    const held = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        clients[index % 2].graphql(key, HOLD, { input: bookingInput(created.body.slug, { hold: true, quantity: seats, ticketTypeId: index % 3 ? ticketTypeId : null }) }),
      ),
    );
    const ids = held.filter((response) => response.body.data?.createBooking?.status === 'HELD').map((response) => response.body.data.createBooking.id as string);
    expect(ids).toHaveLength(30);
    expect(held.filter((response) => response.body.errors?.[0]?.extensions?.code === 'SOLD_OUT')).toHaveLength(10);

    const confirm = 'mutation($id: ID!) { confirmBooking(id: $id) { id status } }';
    const cancel = 'mutation($id: ID!) { cancelBooking(id: $id) { id status } }';
    const lapse = (id: string) => orm.em.fork().getConnection().execute(`update bookings set expires_at = now() - interval '1 second' where id = ?`, [id]);
    await Promise.all([
      // Each of these confirmed from both processes at once: one confirms, the other answers it confirmed.
      ...ids.slice(0, 10).flatMap((id) => clients.map((client) => client.graphql(key, confirm, { id }))),
      ...ids.slice(10, 16).map((id, index) => clients[index % 2].graphql(key, cancel, { id })),
      ...ids.slice(16, 24).map(lapse),
      // New bookings race for what the cancellations free.
      ...Array.from({ length: 12 }, (_, index) => clients[index % 2].graphql(key, CREATE_BOOKING, { input: bookingInput(created.body.slug, { quantity: seats }) })),
    ]);
    const statusOf = async () =>
      (await orm.em.fork().getConnection().execute<Array<{ id: string; status: string }>>('select id, status from bookings where id in (?)', [ids])).reduce(
        (map, row) => map.set(row.id, row.status),
        new Map<string, string>(),
      );
    let statuses = await statusOf();
    for (let waited = 0; waited < 10_000 && ids.slice(16, 24).some((id) => statuses.get(id) !== 'EXPIRED'); waited += 200) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      statuses = await statusOf();
    }
    expect(ids.map((id) => statuses.get(id))).toEqual([...Array(10).fill('CONFIRMED'), ...Array(6).fill('CANCELLED'), ...Array(8).fill('EXPIRED'), ...Array(6).fill('HELD')]);
    const counts = await storedCounts(orm, created.body.id);
    expectConsistent(counts);
    expect(counts.held).toBe(6 * seats);
    expect(counts.registrationCount + counts.held).toBeLessThanOrEqual(capacity);
    // What is free is booked exactly, and no more.
    const left = capacity - counts.registrationCount - counts.held;
    const rest = await Promise.all(Array.from({ length: left + 4 }, (_, index) => clients[index % 2].graphql(key, CREATE_BOOKING, { input: bookingInput(created.body.slug) })));
    expect(rest.filter((response) => response.body.data?.createBooking?.status === 'CONFIRMED')).toHaveLength(left);
    const final = await storedCounts(orm, created.body.id);
    expectConsistent(final);
    expect(final.registrationCount + final.held).toBe(capacity);
  });
});
