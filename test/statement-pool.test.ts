import 'reflect-metadata';
import { DEFAULT_DATABASE_TIMEOUTS } from '../src/foundation/config';
import { preparedStatements, type PreparedStatements } from '../src/platform/db/prepared-statements';
import { openStatementPool, type StatementPool } from '../src/platform/db/statement-pool';
import { EventOrder } from '../src/modules/event/event-order';
import { EventStatus } from '../src/modules/event/event-status';
import { findEventBySlug, ticketTypesOfEvents, type EventListQuery } from '../src/modules/event/event.read-repository';
import { listEvents } from '../src/modules/event/event-list.read-repository';
import { openCommandDatabase, type CommandDatabase } from './helpers/command-database';
import { createTestDatabase, describeOnPostgres, withAdminClient } from './helpers/database';
import { openDatabase } from '../src/schema/database';
import { insertEvents, moveIntoPast, setStoredStatus } from './helpers/event-rows';
import { createTenant, eventInput } from './helpers/factories';
import { startTcpProxy } from './helpers/tcp-proxy';
import { startTestApp } from './helpers/test-app';

// The hot reads run on a read pool of their own (postgres.js, pipelined: docs/architecture.md, "The hot read path"). It must return
// exactly what the ORM's connections return for every read statement, and live and die with the service.

/** Connections of the read pool on one database, as PostgreSQL lists them. */
async function readConnections(databaseUrl: string, pool = 'reads'): Promise<number> {
  const database = new URL(databaseUrl).pathname.slice(1);
  return withAdminClient(async (client) => {
    const { rows } = await client.query<{ count: number }>(
      `select count(*)::int as count from pg_stat_activity where datname = $1 and application_name = $2`,
      [database, `event-service ${pool}`],
    );
    return rows[0].count;
  });
}

describeOnPostgres('the read pool needs a PostgreSQL server')('read pool', () => {
  describe('returns the rows the ORM connections return', () => {
    let database: CommandDatabase;
    let pool: StatementPool;
    let orm: PreparedStatements;
    let organizationId: string;
    let other: string;
    const slugs: string[] = [];

    beforeAll(async () => {
      database = await openCommandDatabase();
      pool = openStatementPool(database.orm, { max: 2, timeouts: DEFAULT_DATABASE_TIMEOUTS });
      orm = preparedStatements(database.orm.em);
      ({ organization: { id: organizationId } } = await createTenant(database.orm));
      ({ organization: { id: other } } = await createTenant(database.orm));
      const day = 24 * 3600 * 1000;
      const soon = await insertEvents(database.orm, organizationId, 4, { ticketTypesEach: 3, startDate: new Date(Date.now() + 3 * day), endDate: new Date(Date.now() + 4 * day) });
      const later = await insertEvents(database.orm, organizationId, 3, { status: EventStatus.PUBLISHED, ticketTypesEach: 0 });
      await insertEvents(database.orm, other, 2, { ticketTypesEach: 1 });
      await setStoredStatus(database.orm, soon[1].id, EventStatus.PUBLISHED);
      await moveIntoPast(database.orm, soon[1].id);
      await setStoredStatus(database.orm, soon[2].id, EventStatus.CANCELLED);
      // Fields that differ by type: nulls, non-ASCII text, a price with cents, a capacity.
      const connection = database.orm.em.getConnection();
      await connection.execute(`update events set title = 'Café 100% _under_ ☕', description = null, venue = 'Zürich', capacity = 250 where id = ?`, [soon[0].id]);
      await connection.execute(`update ticket_types set price = 12.5, currency = 'CHF' where event_id = ?`, [soon[0].id]);
      slugs.push(...soon.map((event) => event.slug), ...later.map((event) => event.slug));
    });
    afterAll(async () => {
      await pool.close();
      await database.close();
    });

    test('one event by slug, with its ticket types; another organization\'s slug and a missing one', async () => {
      for (const slug of [...slugs, 'no-such-event']) {
        const fromPool = await findEventBySlug(pool, organizationId, slug);
        expect(fromPool).toEqual(await findEventBySlug(orm, organizationId, slug));
        if (slug !== 'no-such-event') expect(fromPool).not.toBeNull();
      }
      expect(await findEventBySlug(pool, other, slugs[0])).toBeNull();
      const withCents = await findEventBySlug(pool, organizationId, slugs[0]);
      expect(withCents).toMatchObject({ title: 'Café 100% _under_ ☕', description: null, capacity: 250 });
      expect(withCents?.ticketTypes?.[0]).toMatchObject({ price: 12.5, currency: 'CHF' });
    });

    const queries: Array<[string, EventListQuery]> = [
      ['first page', { page: 1, limit: 20 }],
      ['a small page', { page: 2, limit: 2 }],
      ['past the last page', { page: 9, limit: 20 }],
      ...Object.values(EventStatus).map((status): [string, EventListQuery] => [`status ${status}`, { page: 1, limit: 20, status }]),
      ['starting within a window', { page: 1, limit: 20, startsAfter: new Date(Date.now() + 2 * 86_400_000), startsBefore: new Date(Date.now() + 5 * 86_400_000) }],
      ['a search with LIKE characters', { page: 1, limit: 20, search: '100% _' }],
      ...Object.values(EventOrder).map((orderBy): [string, EventListQuery] => [`order ${orderBy}`, { page: 1, limit: 5, orderBy }]),
    ];
    test.each(queries)('a page of events: %s', async (_, query) => {
      const fromPool = await listEvents(pool, organizationId, query);
      expect(fromPool).toEqual(await listEvents(orm, organizationId, query));
      // Every query here matches something: equal empty answers would prove nothing.
      expect(fromPool.total).toBeGreaterThan(0);
    });

    test('its connections carry the same statement timeout as the ORM\'s', async () => {
      const [row] = await pool.query<{ statement_timeout: string }>('show statement_timeout', []);
      expect(row.statement_timeout).toBe(`${DEFAULT_DATABASE_TIMEOUTS.statementMs / 1000}s`);
    });

    test('the ticket types of a page of events', async () => {
      const { events } = await listEvents(orm, organizationId, { page: 1, limit: 20 });
      const ids = events.map((event) => event.id);
      expect([...(await ticketTypesOfEvents(pool, ids))]).toEqual([...(await ticketTypesOfEvents(orm, ids))]);
    });
  });

  test('the service reads through its own connections, and closes them when it stops', async () => {
    const app = await startTestApp();
    let closed = false;
    try {
      const { key } = await createTenant(app.orm);
      const created = await app.client.rest('POST', '/v1/events', key, eventInput());
      expect(created.status).toBe(201);
      const read = await app.client.rest('GET', `/v1/events/${created.body.slug}`, key);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(created.body);
      expect(await readConnections(app.databaseUrl)).toBeGreaterThan(0);
      await app.close();
      closed = true;
      expect(await readConnections(app.databaseUrl)).toBe(0);
    } finally {
      if (!closed) await app.close();
    }
  });

  test('DB_READ_POOL_MAX=0: the reads share the ORM connections', async () => {
    const app = await startTestApp({ DB_READ_POOL_MAX: '0' });
    try {
      const { key } = await createTenant(app.orm);
      const created = await app.client.rest('POST', '/v1/events', key, eventInput());
      const read = await app.client.rest('GET', `/v1/events/${created.body.slug}`, key);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(created.body);
      expect(await readConnections(app.databaseUrl)).toBe(0);
    } finally {
      await app.close();
    }
  });

  // Writes that are one statement (a booking, a create without Idempotency-Key) run on a
  // pool of the same kind, apart from the reads: a booking waiting for its event's row lock holds up
  // the statements queued behind it on its connection, never a read.
  test('a booking waiting for a row lock on the writes pool holds up no read; DB_WRITE_POOL_MAX=0 books on the ORM connections', async () => {
    const app = await startTestApp({ DB_WRITE_POOL_MAX: '1' });
    try {
      const { key } = await createTenant(app.orm);
      const created = await app.client.rest('POST', '/v1/events', key, eventInput({ capacity: 10 }));
      await app.client.rest('PUT', `/v1/events/${created.body.slug}`, key, { status: 'PUBLISHED' });
      expect(await readConnections(app.databaseUrl, 'writes')).toBe(1);
      const holding = await app.orm.em.getKnex().transaction();
      try {
        await holding.raw('select id from events where id = ? for no key update', [created.body.id]);
        const booking = app.client.graphql(key, 'mutation($i: CreateBookingInput!) { createBooking(input: $i) { id } }', {
          i: { eventSlug: created.body.slug, quantity: 1, attendeeEmail: 'a@example.com', attendeeName: 'A' },
        });
        // The booking waits on the only write connection; reads of the event still answer.
        for (let read = 0; read < 5; read += 1) expect((await app.client.rest('GET', `/v1/events/${created.body.slug}`, key)).status).toBe(200);
        const second = app.client.rest('POST', '/v1/events', key, eventInput());
        const waited = await Promise.race([second.then(() => 'answered'), new Promise((resolve) => setTimeout(() => resolve('queued'), 300))]);
        expect(waited).toBe('queued'); // a create queued behind the booking on that one connection
        await holding.commit();
        expect((await booking).body.data.createBooking.id).toMatch(/^bk_/);
        expect((await second).status).toBe(201);
      } finally {
        await holding.rollback().catch(() => undefined);
      }
    } finally {
      await app.close();
    }
    const ormOnly = await startTestApp({ DB_WRITE_POOL_MAX: '0' });
    try {
      const { key } = await createTenant(ormOnly.orm);
      const created = await ormOnly.client.rest('POST', '/v1/events', key, eventInput({ capacity: 10 }));
      expect(created.status).toBe(201);
      expect(await readConnections(ormOnly.databaseUrl, 'writes')).toBe(0);
    } finally {
      await ormOnly.close();
    }
  });
});

// A connection whose ROLLBACK never reached PostgreSQL (node-postgres drops a query
// whose timeout fired before it was sent, as under a frozen database) goes back to the pool in a
// transaction. Handed out again it would run the next request inside that old transaction; the pool
// must close it instead (src/platform/db/orm-config.ts, TRANSACTION_STATUS).
describeOnPostgres('the ORM pool needs a PostgreSQL server')("the ORM's pool", () => {
  interface PgClient {
    query<Row>(text: string): Promise<{ rows: Row[] }>;
  }
  interface KnexClient {
    acquireConnection(): Promise<PgClient>;
    releaseConnection(connection: PgClient): Promise<unknown>;
  }

  test('never hands out a connection left inside a transaction', async () => {
    const database = await createTestDatabase();
    // One connection at most: the next acquire can only get the stale one back, or a new one.
    const orm = await openDatabase({ clientUrl: database.url, pool: { min: 0, max: 1 } });
    try {
      const knex = orm.em.getConnection().getKnex().client as KnexClient;
      const stale = await knex.acquireConnection();
      const [{ pid }] = (await stale.query<{ pid: number }>('select pg_backend_pid() as pid')).rows;
      await stale.query('begin');
      await stale.query('select 1');
      await knex.releaseConnection(stale);

      const next = await knex.acquireConnection();
      try {
        const [row] = (await next.query<{ pid: number }>('select pg_backend_pid() as pid')).rows;
        expect(row.pid).not.toBe(pid);
        // No transaction is open on the connection handed out: BEGIN would warn, COMMIT would commit nothing old.
        const [{ open }] = (await next.query<{ open: boolean }>('select txid_current_if_assigned() is not null as open')).rows;
        expect(open).toBe(false);
      } finally {
        await knex.releaseConnection(next);
      }
      // The stale one was closed, not kept idle in its transaction.
      const alive = () => withAdminClient(async (client) => (await client.query('select 1 from pg_stat_activity where pid = $1', [pid])).rowCount);
      for (let tries = 0; (await alive()) !== 0 && tries < 50; tries += 1) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await alive()).toBe(0);
    } finally {
      await orm.close(true);
      await database.drop();
    }
  });

  test('once the database answers again after a run of failed connection attempts, the pool is back within a second', async () => {
    const database = await createTestDatabase();
    const target = new URL(database.url);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const through = new URL(database.url);
    through.port = String(proxy.port);
    const orm = await openDatabase({ clientUrl: through.toString(), pool: { min: 0, max: 1 } });
    const pool = openStatementPool(orm, { max: 1, timeouts: DEFAULT_DATABASE_TIMEOUTS });
    try {
      await pool.query('select 1', []);
      await proxy.cut();
      // Refused attempts, one after the other. postgres.js's own backoff grows with each (3^n / 100 s):
      // after seven it would wait 10-20 s before it tried again.
      for (let attempt = 0; attempt < 7; attempt += 1) await expect(pool.query('select 1', [])).rejects.toThrow();
      await proxy.restore();
      const started = performance.now();
      await pool.query('select 1', []);
      expect(performance.now() - started).toBeLessThan(1_000);
    } finally {
      await pool.close();
      await orm.close(true);
      await proxy.close();
      await database.drop();
    }
  });
});
