import { createPublishedEvent } from './helpers/bookings';
import { createTenant } from './helpers/factories';
import { insertBookings } from './helpers/event-rows';
import { useTestApp } from './helpers/use-test-app';
import { CREATE_ENDPOINT, WEBHOOK_TEST_ENV } from './helpers/webhook-receiver';
import { BookingStatus } from '../src/modules/booking/booking.entity';

// D25: every list that grows with an organization's data pages by cursor as well as by number, through
// every door it has: bookings (REST here; GraphQL in lists-scale), the waiting list (REST and GraphQL),
// an endpoint's webhook messages (GraphQL). Each walk reads every row once, in the list's order, while
// rows are added between pages; a cursor of another list, filter or organization is 400 on after.
const ctx = useTestApp(WEBHOOK_TEST_ENV);

interface Page {
  ids: string[];
  total: number;
  nextCursor: string | null;
}

/** Every page of a list by cursor (`more` runs after each page, before the next is read). */
async function walk(read: (after?: string) => Promise<Page>, more: () => Promise<void> = async () => {}): Promise<string[]> {
  const seen: string[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 50; pages += 1) {
    const page = await read(after);
    seen.push(...page.ids);
    if (!page.nextCursor) return seen;
    expect(page.nextCursor).toMatch(/^[A-Za-z0-9_-]{24,512}$/);
    after = page.nextCursor;
    await more();
  }
  throw new Error('the walk did not end');
}

function expectAfterRefused(response: { status: number; body: Record<string, any> }, door: 'rest' | 'graphql', field = 'after'): void {
  const error = door === 'rest' ? (expect(response.status).toBe(400), response.body.error) : response.body.errors[0].extensions;
  expect(error).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ field }] } });
}

describe('bookings over REST: ?after= and nextCursor', () => {
  test('a cursor walk reads every booking once, newest first, while bookings are made between pages', async () => {
    const tenant = await createTenant(ctx.app.orm);
    const event = await createPublishedEvent(ctx.app.client, tenant.key, { capacity: 500 });
    await insertBookings(ctx.app.orm, { id: event.id, organizationId: tenant.organization.id }, Array.from({ length: 11 }, () => BookingStatus.CONFIRMED));
    const path = `/v1/events/${event.slug}/bookings`;
    const everything = await ctx.app.client.rest('GET', `${path}?limit=100`, tenant.key);
    expect(everything.body).toMatchObject({ total: 11, nextCursor: null });
    const read = async (after?: string): Promise<Page> => {
      const response = await ctx.app.client.rest('GET', `${path}?limit=4${after ? `&after=${after}` : ''}`, tenant.key);
      expect(response.status).toBe(200);
      return { ids: response.body.bookings.map((booking: { id: string }) => booking.id), total: response.body.total, nextCursor: response.body.nextCursor };
    };
    const book = async () => {
      const made = await ctx.app.client.rest('POST', path, tenant.key, { quantity: 1, attendeeEmail: 'late@example.com', attendeeName: 'Late' });
      expect(made.status).toBe(201);
    };
    // Newest first: what is booked meanwhile is before the cursor, so the walk is exactly the rows it started with.
    expect(await walk(read, book)).toEqual(everything.body.bookings.map((booking: { id: string }) => booking.id));
    expect((await read()).total).toBe(11 + 2);

    // The cursors are those of Query.bookings: one opens through the other door.
    const cursor = (await read()).nextCursor!;
    const graphql = await ctx.app.client.graphql(tenant.key, 'query($s: String!, $a: String) { bookings(eventSlug: $s, limit: 4, after: $a) { bookings { id } } }', {
      s: event.slug,
      a: cursor,
    });
    expect(graphql.body.data.bookings.bookings.map((booking: { id: string }) => booking.id)).toEqual((await read(cursor)).ids);

    expectAfterRefused(await ctx.app.client.rest('GET', `${path}?status=CANCELLED&after=${cursor}`, tenant.key), 'rest');
    expectAfterRefused(await ctx.app.client.rest('GET', `${path}?after=${cursor.slice(0, -2)}AA`, tenant.key), 'rest');
    expectAfterRefused(await ctx.app.client.rest('GET', `${path}?after=${cursor}&page=2`, tenant.key), 'rest', 'page');
    const stranger = await createTenant(ctx.app.orm);
    const theirs = await createPublishedEvent(ctx.app.client, stranger.key, { capacity: 5, slug: event.slug });
    expect(theirs.slug).toBe(event.slug);
    expectAfterRefused(await ctx.app.client.rest('GET', `${path}?after=${cursor}`, stranger.key), 'rest');
  });
});

describe('the waiting list: after / nextCursor through REST and GraphQL', () => {
  const PAGE = `query($s: String!, $limit: Int, $status: WaitlistStatus, $after: String) {
    waitlist(eventSlug: $s, limit: $limit, status: $status, after: $after) { entries { id position } total nextCursor }
  }`;

  test.each(['rest', 'graphql'] as const)('%s: a cursor walk reads every entry once in join order, entries joining between pages included', async (door) => {
    const tenant = await createTenant(ctx.app.orm);
    const event = await createPublishedEvent(ctx.app.client, tenant.key, { capacity: 1 });
    const path = `/v1/events/${event.slug}/waitlist`;
    expect((await ctx.app.client.rest('POST', `/v1/events/${event.slug}/bookings`, tenant.key, { quantity: 1, attendeeEmail: 'a@example.com', attendeeName: 'A' })).status).toBe(201);
    let joined = 0;
    const join = async () => {
      joined += 1;
      const made = await ctx.app.client.rest('POST', path, tenant.key, { quantity: 1, attendeeEmail: `w${joined}@example.com`, attendeeName: `W${joined}` });
      expect(made.status).toBe(201);
    };
    for (let index = 0; index < 7; index += 1) await join();
    const read = async (after?: string, status?: string): Promise<Page & { positions: number[] }> => {
      let body: { entries: Array<{ id: string; position: number }>; total: number; nextCursor: string | null };
      if (door === 'rest') {
        const response = await ctx.app.client.rest('GET', `${path}?limit=3${status ? `&status=${status}` : ''}${after ? `&after=${after}` : ''}`, tenant.key);
        expect(response.status).toBe(200);
        body = response.body;
      } else {
        const response = await ctx.app.client.graphql(tenant.key, PAGE, { s: event.slug, limit: 3, status, after });
        expect(response.body.errors).toBeUndefined();
        body = response.body.data.waitlist;
      }
      return { ids: body.entries.map((entry) => entry.id), positions: body.entries.map((entry) => entry.position), total: body.total, nextCursor: body.nextCursor };
    };
    // Join order: each entry joining meanwhile comes after the cursor and is read once.
    const seen = await walk(read, join);
    expect(seen).toHaveLength(7 + 2);
    expect(new Set(seen).size).toBe(seen.length);
    const all = await ctx.app.client.graphql(tenant.key, PAGE, { s: event.slug, limit: 100 });
    expect(seen).toEqual(all.body.data.waitlist.entries.map((entry: { id: string }) => entry.id));
    expect(all.body.data.waitlist).toMatchObject({ total: 9, nextCursor: null });
    // Positions on a cursor page are the entries' places in the whole list.
    const second = await read((await read()).nextCursor!);
    expect(second.positions).toEqual([4, 5, 6]);

    const cursor = (await read()).nextCursor!;
    const refused = async (key: string, after: string, status?: string) =>
      door === 'rest'
        ? ctx.app.client.rest('GET', `${path}?after=${after}${status ? `&status=${status}` : ''}`, key)
        : ctx.app.client.graphql(key, PAGE, { s: event.slug, after, status });
    expectAfterRefused(await refused(tenant.key, cursor, 'WAITING'), door);
    expectAfterRefused(await refused(tenant.key, `${cursor}A`), door);
    const stranger = await createTenant(ctx.app.orm);
    await createPublishedEvent(ctx.app.client, stranger.key, { capacity: 5, slug: event.slug });
    expectAfterRefused(await refused(stranger.key, cursor), door);
  });
});

describe("an endpoint's webhook messages: after / nextCursor (GraphQL)", () => {
  const PAGE = `query($e: ID!, $limit: Int, $page: Int, $status: WebhookMessageStatus, $after: String) {
    webhookMessages(endpointId: $e, limit: $limit, page: $page, status: $status, after: $after) { messages { id } total nextCursor }
  }`;

  /** Messages delivered to `endpointId` already (SUCCEEDED: nothing for the worker to send), `count` at one instant (ties broken by id). */
  async function delivered(organizationId: string, endpointId: string, count: number): Promise<void> {
    const connection = ctx.app.orm.em.fork().getConnection();
    await connection.execute(
      `with made as (
         insert into webhook_messages (id, organization_id, type, body, created_at)
         select 'msg_' || left(md5(random()::text), 24), ?, 'event.created', '{"type":"event.created","data":{}}', now() from generate_series(1, ?)
         returning id)
       insert into webhook_deliveries (organization_id, message_id, endpoint_id, status, next_attempt_at, created_at)
       select ?, id, ?, 'SUCCEEDED', now(), now() from made`,
      [organizationId, count, organizationId, endpointId],
    );
  }

  test('a cursor walk reads every message once, newest first, while messages are added between pages', async () => {
    const tenant = await createTenant(ctx.app.orm);
    const created = await ctx.app.client.graphql(tenant.key, CREATE_ENDPOINT, { input: { url: 'https://127.0.0.1:9/hook', eventTypes: ['booking.created'] } });
    expect(created.body.errors).toBeUndefined();
    const endpointId: string = created.body.data.createWebhookEndpoint.endpoint.id;
    await delivered(tenant.organization.id, endpointId, 10);
    const read = async (after?: string): Promise<Page> => {
      const response = await ctx.app.client.graphql(tenant.key, PAGE, { e: endpointId, limit: 4, after });
      expect(response.body.errors).toBeUndefined();
      const list = response.body.data.webhookMessages;
      return { ids: list.messages.map((message: { id: string }) => message.id), total: list.total, nextCursor: list.nextCursor };
    };
    const everything = (await ctx.app.client.graphql(tenant.key, PAGE, { e: endpointId, limit: 100 })).body.data.webhookMessages;
    expect(everything).toMatchObject({ total: 10, nextCursor: null });
    expect(await walk(read, () => delivered(tenant.organization.id, endpointId, 1))).toEqual(everything.messages.map((message: { id: string }) => message.id));
    expect((await read()).total).toBe(10 + 2);

    const cursor = (await read()).nextCursor!;
    expectAfterRefused(await ctx.app.client.graphql(tenant.key, PAGE, { e: endpointId, after: cursor, status: 'FAILED' }), 'graphql');
    expectAfterRefused(await ctx.app.client.graphql(tenant.key, PAGE, { e: endpointId, after: `${cursor}A` }), 'graphql');
    expectAfterRefused(await ctx.app.client.graphql(tenant.key, PAGE, { e: endpointId, after: cursor, page: 2 }), 'graphql', 'page');
    const other = await ctx.app.client.graphql(tenant.key, CREATE_ENDPOINT, { input: { url: 'https://127.0.0.1:9/other' } });
    expectAfterRefused(await ctx.app.client.graphql(tenant.key, PAGE, { e: other.body.data.createWebhookEndpoint.endpoint.id, after: cursor }), 'graphql');
  });
});
