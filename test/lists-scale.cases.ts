import type { MikroORM } from '@mikro-orm/postgresql';
import { DOORS, eventApi, expectValidationError, type Door } from './helpers/event-api';
import { createTenant, eventInput } from './helpers/factories';
import { insertBookings, insertEvents, moveIntoPast, setStoredStatus } from './helpers/event-rows';
import { BookingStatus } from '../src/modules/booking/booking.entity';
import { sameSecretAs, startServiceOn, type ServiceInstance } from './helpers/second-instance';
import { useTestApp } from './helpers/use-test-app';
import { EventStatus } from '../src/modules/event/event-status';

// D25: totals kept in the writes' transaction (event_counts), pages that seek, cursor pages.
const ctx = useTestApp();

const STATUSES = [undefined, 'DRAFT', 'PUBLISHED', 'CANCELLED', 'COMPLETED'] as const;

/** What a count(*) says for each status filter (COMPLETED and PUBLISHED as clients see them, D3). */
async function countedTotals(orm: MikroORM, organizationId: string): Promise<Record<string, number>> {
  const [row] = await orm.em.fork().getConnection().execute<Array<Record<string, number>>>(
    `select count(*)::int as "all",
       count(*) filter (where status = 'DRAFT')::int as "DRAFT",
       count(*) filter (where status = 'PUBLISHED' and end_date > now())::int as "PUBLISHED",
       count(*) filter (where status = 'CANCELLED')::int as "CANCELLED",
       count(*) filter (where status = 'COMPLETED' or (status = 'PUBLISHED' and end_date <= now()))::int as "COMPLETED"
     from events where organization_id = ?`,
    [organizationId],
  );
  return row;
}

/** The list's total for every status filter equals a count of the rows, through both doors. */
async function expectTotalsExact(organizationId: string, key: string): Promise<void> {
  const counted = await countedTotals(ctx.app.orm, organizationId);
  for (const door of DOORS) {
    for (const status of STATUSES) {
      const outcome = await eventApi(ctx.app.client, key, door).list({ status, limit: 1 });
      expect({ door, status, total: outcome.data?.total }).toEqual({ door, status, total: counted[status ?? 'all'] });
    }
  }
}

describe('totals are exact after every kind of write', () => {
  test('create, status change, move into the past, delete, through the API and as SQL', async () => {
    const tenant = await createTenant(ctx.app.orm);
    const api = eventApi(ctx.app.client, tenant.key, 'rest');
    await expectTotalsExact(tenant.organization.id, tenant.key);
    const created = await Promise.all([1, 2, 3].map(() => api.create(eventInput())));
    for (const outcome of created) expect(outcome.status).toBe(201);
    await expectTotalsExact(tenant.organization.id, tenant.key);
    expect((await api.update(created[0].data.slug, { status: 'PUBLISHED' })).status).toBe(200);
    expect((await api.update(created[1].data.slug, { status: 'PUBLISHED' })).status).toBe(200);
    await expectTotalsExact(tenant.organization.id, tenant.key);
    expect((await api.update(created[1].data.slug, { status: 'CANCELLED' })).status).toBe(200);
    await expectTotalsExact(tenant.organization.id, tenant.key);
    await moveIntoPast(ctx.app.orm, created[0].data.id);
    await expectTotalsExact(tenant.organization.id, tenant.key);
    expect((await api.delete(created[2].data.slug)).status).toBe(204);
    await expectTotalsExact(tenant.organization.id, tenant.key);
    // Rows written by SQL (a bulk insert, a status set, a bulk delete) keep the counts as well.
    const rows = await insertEvents(ctx.app.orm, tenant.organization.id, 25, { status: EventStatus.PUBLISHED });
    await setStoredStatus(ctx.app.orm, rows[0].id, EventStatus.COMPLETED);
    await expectTotalsExact(tenant.organization.id, tenant.key);
    await ctx.app.orm.em.fork().getConnection().execute('delete from events where id in (?)', [rows.slice(0, 10).map((row) => row.id)]);
    await expectTotalsExact(tenant.organization.id, tenant.key);
    // A rolled-back write leaves no trace in the counts.
    const connection = ctx.app.orm.em.fork().getConnection();
    await connection.execute('begin');
    await connection.execute('delete from events where organization_id = ?', [tenant.organization.id]);
    await connection.execute('rollback');
    await expectTotalsExact(tenant.organization.id, tenant.key);
  });

  test('concurrent creates and deletes from two instances are all counted', async () => {
    const tenant = await createTenant(ctx.app.orm);
    let second: ServiceInstance | undefined;
    try {
      second = await startServiceOn(ctx.app.databaseUrl, sameSecretAs(ctx.app));
      const apis = [eventApi(ctx.app.client, tenant.key, 'rest'), eventApi(second.client, tenant.key, 'graphql')];
      const outcomes = await Promise.all(Array.from({ length: 24 }, (_, index) => apis[index % 2].create(eventInput())));
      expect(outcomes.map((outcome) => outcome.error?.code ?? 'created')).toEqual(outcomes.map(() => 'created'));
      await expectTotalsExact(tenant.organization.id, tenant.key);
      const deleted = await Promise.all(outcomes.slice(0, 10).map((outcome, index) => apis[(index + 1) % 2].delete(outcome.data.slug)));
      expect(deleted.map((outcome) => outcome.error?.code ?? 'deleted')).toEqual(deleted.map(() => 'deleted'));
      await expectTotalsExact(tenant.organization.id, tenant.key);
      expect((await apis[1].list()).data.total).toBe(14);
    } finally {
      await second?.close();
    }
  });

  test('the migration built the counts of the events stored before it (the kept row equals a count)', async () => {
    const [row] = await ctx.app.orm.em
      .fork()
      .getConnection()
      .execute<Array<{ wrong: number }>>(
        `select count(*)::int as wrong from organizations o
         where coalesce((select sum(k.draft + k.published + k.cancelled + k.completed) from event_counts k where k.organization_id = o.id), 0)
           <> (select count(*) from events e where e.organization_id = o.id)`,
      );
    expect(row.wrong).toBe(0);
  });
});

const ORDERS = ['CREATED_AT_DESC', 'CREATED_AT_ASC', 'START_DATE_ASC', 'START_DATE_DESC'] as const;

/** Every page of a list by cursor; `between` runs after each page. */
async function walk(door: Door, key: string, params: Record<string, string | number | undefined>, between?: () => Promise<void>) {
  const api = eventApi(ctx.app.client, key, door);
  const ids: string[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 100; pages += 1) {
    const outcome = await api.list({ ...params, after });
    expect(outcome.error).toBeUndefined();
    ids.push(...outcome.data.events.map((event: { id: string }) => event.id));
    after = outcome.data.nextCursor ?? undefined;
    if (!after) return ids;
    expect(after).toMatch(/^[A-Za-z0-9_-]+$/);
    await between?.();
  }
  throw new Error('the walk did not end');
}

describe.each(DOORS)('cursor pages through %s', (door) => {
  let tenant: Awaited<ReturnType<typeof createTenant>>;
  let all: Record<string, string[]>;

  beforeAll(async () => {
    tenant = await createTenant(ctx.app.orm);
    // Ties on created_at and start_date: the id breaks them, and a seek must not skip or repeat one.
    const sameTime = new Date(Date.now() - 3600_000);
    await insertEvents(ctx.app.orm, tenant.organization.id, 12, { createdAt: sameTime });
    for (let day = 1; day <= 5; day += 1) {
      await insertEvents(ctx.app.orm, tenant.organization.id, 5, { startDate: new Date(Date.now() + day * 86_400_000) });
    }
    all = {};
    for (const orderBy of ORDERS) {
      const outcome = await eventApi(ctx.app.client, tenant.key, door).list({ orderBy, limit: 100 });
      all[orderBy] = outcome.data.events.map((event: { id: string }) => event.id);
      expect(all[orderBy]).toHaveLength(37);
      expect(outcome.data.nextCursor).toBeNull();
    }
  });

  test.each(ORDERS)('%s: the cursor walk and the page numbers give the full list in order, each row once', async (orderBy) => {
    expect(await walk(door, tenant.key, { orderBy, limit: 5 })).toEqual(all[orderBy]);
    const byNumber: string[] = [];
    for (let page = 1; page <= 8; page += 1) {
      const outcome = await eventApi(ctx.app.client, tenant.key, door).list({ orderBy, limit: 5, page });
      expect(outcome.data.total).toBe(37);
      byNumber.push(...outcome.data.events.map((event: { id: string }) => event.id));
      expect(outcome.data.nextCursor === null).toBe(page === 8);
    }
    expect(byNumber).toEqual(all[orderBy]);
  });

  test('a cursor from a page number continues where that page ends', async () => {
    const api = eventApi(ctx.app.client, tenant.key, door);
    const third = await api.list({ orderBy: 'START_DATE_ASC', limit: 5, page: 3 });
    const next = await api.list({ orderBy: 'START_DATE_ASC', limit: 5, after: third.data.nextCursor });
    expect(next.data.events.map((event: { id: string }) => event.id)).toEqual(all.START_DATE_ASC.slice(15, 20));
    expect(next.data.total).toBe(37);
  });

  test('rows inserted between pages never shift a walk: every row once, the new ones where the order puts them', async () => {
    const other = await createTenant(ctx.app.orm);
    const before = (await insertEvents(ctx.app.orm, other.organization.id, 23)).map((event) => event.id);
    const inserted: string[] = [];
    const insert = async () => {
      const [event] = await insertEvents(ctx.app.orm, other.organization.id, 1, { createdAt: new Date() });
      inserted.push(event.id);
    };
    const newestFirst = await walk(door, other.key, { limit: 4 }, insert);
    // Newest first: what is inserted meanwhile is before the cursor, so the walk is exactly the rows it started with.
    expect(newestFirst).toHaveLength(before.length);
    expect(new Set(newestFirst)).toEqual(new Set(before));
    inserted.length = 0;
    const oldestFirst = await walk(door, other.key, { orderBy: 'CREATED_AT_ASC', limit: 4 }, insert);
    // Oldest first: each inserted row comes after the cursor and is read once; nothing is repeated.
    expect(new Set(oldestFirst).size).toBe(oldestFirst.length);
    expect(oldestFirst.slice(0, before.length + 6).filter((id) => before.includes(id)).length).toBe(before.length);
    for (const id of inserted.slice(0, -1)) expect(oldestFirst).toContain(id);
  });

  test('a cursor altered, of another organization or of another list is 400 VALIDATION_ERROR on after', async () => {
    const api = eventApi(ctx.app.client, tenant.key, door);
    const first = await api.list({ limit: 5, orderBy: 'CREATED_AT_ASC' });
    const cursor: string = first.data.nextCursor;
    const flipped = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;
    expectValidationError(await api.list({ orderBy: 'CREATED_AT_ASC', after: flipped }), door, ['after']);
    expectValidationError(await api.list({ orderBy: 'CREATED_AT_ASC', after: 'not a cursor' }), door, ['after']);
    expectValidationError(await api.list({ orderBy: 'CREATED_AT_ASC', after: 'x'.repeat(600) }), door, ['after']);
    expectValidationError(await api.list({ orderBy: 'CREATED_AT_DESC', after: cursor }), door, ['after']);
    expectValidationError(await api.list({ orderBy: 'CREATED_AT_ASC', status: 'DRAFT', after: cursor }), door, ['after']);
    expectValidationError(await api.list({ orderBy: 'CREATED_AT_ASC', search: 'Row', after: cursor }), door, ['after']);
    const stranger = await createTenant(ctx.app.orm);
    expectValidationError(await eventApi(ctx.app.client, stranger.key, door).list({ orderBy: 'CREATED_AT_ASC', after: cursor }), door, ['after']);
    // A cursor names where its page starts: a page number beside it is refused; page 1 (the default) is not a page number.
    expectValidationError(await api.list({ orderBy: 'CREATED_AT_ASC', after: cursor, page: 2 }), door, ['page']);
    const same = await api.list({ orderBy: 'CREATED_AT_ASC', limit: 5, after: cursor, page: 1 });
    expect(same.data.events.map((event: { id: string }) => event.id)).toEqual(all.CREATED_AT_ASC.slice(5, 10));
  });

  test('filters keep their cursor: a walk of one status is that status only', async () => {
    const api = eventApi(ctx.app.client, tenant.key, door);
    const ids = await walk(door, tenant.key, { status: 'DRAFT', limit: 7, orderBy: 'START_DATE_DESC' });
    expect(ids).toEqual(all.START_DATE_DESC);
    expect((await api.list({ status: 'PUBLISHED' })).data).toMatchObject({ events: [], total: 0, nextCursor: null });
  });
});

describe('bookings lists: exact totals, cursor pages (GraphQL: Query.bookings and Event.bookings)', () => {
  const PAGE = `query($slug: String!, $limit: Int, $page: Int, $status: BookingStatus, $after: String) {
    bookings(eventSlug: $slug, limit: $limit, page: $page, status: $status, after: $after) { bookings { id status } total nextCursor }
  }`;

  async function publishedEvent() {
    const tenant = await createTenant(ctx.app.orm);
    const api = eventApi(ctx.app.client, tenant.key, 'rest');
    const created = await api.create(eventInput({ capacity: 500 }));
    expect((await api.update(created.data.slug, { status: 'PUBLISHED' })).status).toBe(200);
    return { tenant, slug: created.data.slug as string, id: created.data.id as string };
  }

  const book = (key: string, slug: string) =>
    ctx.app.client.graphql(key, 'mutation($i: CreateBookingInput!) { createBooking(input: $i) { id status } }', {
      i: { eventSlug: slug, quantity: 1, attendeeEmail: 'a@example.com', attendeeName: 'A' },
    });

  test('totals follow bookings and cancellations, per status', async () => {
    const { tenant, slug } = await publishedEvent();
    const made = await Promise.all(Array.from({ length: 9 }, () => book(tenant.key, slug)));
    const ids = made.map((response) => response.body.data.createBooking.id as string);
    for (const id of ids.slice(0, 4)) {
      const cancelled = await ctx.app.client.graphql(tenant.key, 'mutation($id: ID!) { cancelBooking(id: $id) { status } }', { id });
      expect(cancelled.body.errors).toBeUndefined();
    }
    const totals = async (status?: string) => (await ctx.app.client.graphql(tenant.key, PAGE, { slug, limit: 1, status })).body.data.bookings.total;
    expect([await totals(), await totals('CONFIRMED'), await totals('CANCELLED')]).toEqual([9, 5, 4]);
  });

  test('a cursor walk reads every booking once, newest first, while bookings are made between pages', async () => {
    const { tenant, slug, id } = await publishedEvent();
    // Created in one statement: ties on created_at, broken by id.
    await insertBookings(ctx.app.orm, { id, organizationId: tenant.organization.id }, Array.from({ length: 17 }, () => BookingStatus.CONFIRMED));
    const everything = (await ctx.app.client.graphql(tenant.key, PAGE, { slug, limit: 100 })).body.data.bookings;
    expect(everything.nextCursor).toBeNull();
    const seen: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 20; pages += 1) {
      const page = (await ctx.app.client.graphql(tenant.key, PAGE, { slug, limit: 4, after })).body.data.bookings;
      seen.push(...page.bookings.map((booking: { id: string }) => booking.id));
      after = page.nextCursor ?? undefined;
      if (!after) break;
      await book(tenant.key, slug);
    }
    expect(seen).toEqual(everything.bookings.map((booking: { id: string }) => booking.id));
    // Event.bookings gives the same cursors, usable with Query.bookings.
    const nested = await ctx.app.client.graphql(tenant.key, `query { events { events { slug bookings(limit: 4) { nextCursor } } } }`);
    const cursor = nested.body.data.events.events[0].bookings.nextCursor;
    const continued = (await ctx.app.client.graphql(tenant.key, PAGE, { slug, limit: 4, after: cursor })).body.data.bookings;
    expect(continued.bookings).toHaveLength(4);
  });

  test('a booking cursor of another event, status or organization, or altered, is 400 VALIDATION_ERROR on after', async () => {
    const { tenant, slug, id } = await publishedEvent();
    await insertBookings(ctx.app.orm, { id, organizationId: tenant.organization.id }, Array.from({ length: 5 }, () => BookingStatus.CONFIRMED));
    const cursor = (await ctx.app.client.graphql(tenant.key, PAGE, { slug, limit: 2 })).body.data.bookings.nextCursor as string;
    const other = await eventApi(ctx.app.client, tenant.key, 'rest').create(eventInput());
    const refused = async (key: string, variables: Record<string, unknown>) => {
      const response = await ctx.app.client.graphql(key, PAGE, { limit: 2, ...variables });
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ field: 'after' }] } });
    };
    await refused(tenant.key, { slug: other.data.slug, after: cursor });
    await refused(tenant.key, { slug, status: 'CANCELLED', after: cursor });
    await refused(tenant.key, { slug, after: `${cursor}A` });
    const stranger = await createTenant(ctx.app.orm);
    const strangerEvent = await eventApi(ctx.app.client, stranger.key, 'rest').create(eventInput({ slug }));
    expect(strangerEvent.status).toBe(201);
    await refused(stranger.key, { slug, after: cursor });
  });
});
