import { randomBytes, randomUUID } from 'node:crypto';
import { anyCodelessBooking, issueMissingTicketCodes } from '../src/modules/booking/commands/ticket-code-upkeep';
import { TicketCodes } from '../src/platform/crypto/ticket-codes';
import { bookingInput, CANCEL_BOOKING, createPublishedEvent } from './helpers/bookings';
import { createApiKey, createTenant } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';
import { CREATE_ENDPOINT, WEBHOOK_TEST_ENV, WebhookReceiver } from './helpers/webhook-receiver';
import { BOOKING_CODE, codeOf, CONFIRM_WITH_CODE, CREATE_WITH_CODE, everyStoredRow, scan, TICKET_CODE } from './helpers/ticket-codes';

/*
 * D29, ticket codes: every CONFIRMED booking carries one (made CONFIRMED, or a hold when confirmed,
 * a waiting-list offer's too), in the shape and with the randomness D29 asks, unique; read only with
 * bookings:read, through both doors; never in clear in the database, a webhook payload or a log line;
 * bookings confirmed before D29 get theirs from the service.
 */

const ctx = useTestApp(WEBHOOK_TEST_ENV);
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await new WebhookReceiver().listen();
  ctx.beforeClose(() => receiver.close());
});

const sql = <T>(text: string, values: unknown[] = []) => ctx.app.orm.em.fork().getConnection().execute<T[]>(text, values);

async function tenantWithEndpoint() {
  const tenant = await createTenant(ctx.app.orm);
  const created = await ctx.app.client.graphql(tenant.key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?org=${tenant.organization.id}` } });
  expect(created.body.errors).toBeUndefined();
  return tenant;
}

async function book(key: string, slug: string, overrides: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const response = await ctx.app.client.graphql(key, CREATE_WITH_CODE, { input: bookingInput(slug, overrides) });
  expect(response.body.errors).toBeUndefined();
  return response.body.data.createBooking;
}

test('a booking made CONFIRMED carries its code at once, through both doors: tk_ and 24 letters and digits, the same on every read', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { capacity: 100 });
  const viaGraphql = await book(key, event.slug);
  expect(viaGraphql.ticketCode).toMatch(TICKET_CODE);
  const viaRest = await ctx.app.client.rest('POST', `/v1/events/${event.slug}/bookings`, key, { quantity: 1, attendeeEmail: 'a@example.com', attendeeName: 'A' });
  expect(viaRest.status).toBe(201);
  expect(viaRest.body.ticketCode).toMatch(TICKET_CODE);
  // URL-safe as it is, and more than 128 random bits: 24 characters of 62.
  expect(encodeURIComponent(viaRest.body.ticketCode)).toBe(viaRest.body.ticketCode);
  expect(24 * Math.log2(62)).toBeGreaterThan(128);
  for (const booking of [viaGraphql, viaRest.body]) {
    expect(await codeOf(ctx.app.client, key, booking.id)).toBe(booking.ticketCode);
    expect((await ctx.app.client.rest('GET', `/v1/bookings/${booking.id}`, key)).body.ticketCode).toBe(booking.ticketCode);
  }
  const listed = await ctx.app.client.rest('GET', `/v1/events/${event.slug}/bookings`, key);
  expect(listed.body.bookings.map((booking: { ticketCode: string }) => booking.ticketCode).sort()).toEqual([viaGraphql.ticketCode, viaRest.body.ticketCode].sort());
  const page = await ctx.app.client.graphql(key, 'query($slug: String!) { event(slug: $slug) { bookings { bookings { id ticketCode } } } }', { slug: event.slug });
  expect(page.body.data.event.bookings.bookings.map((booking: { ticketCode: string }) => booking.ticketCode).sort()).toEqual(
    [viaGraphql.ticketCode, viaRest.body.ticketCode].sort(),
  );
});

test('codes are unique: 60 bookings made at once, 60 different codes, each finding its own booking', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { capacity: 600 });
  const made = await Promise.all(Array.from({ length: 60 }, (_, index) => book(key, event.slug, { attendeeEmail: `u${index}@example.com` })));
  const codes = made.map((booking) => booking.ticketCode as string);
  for (const code of codes) expect(code).toMatch(TICKET_CODE);
  expect(new Set(codes).size).toBe(60);
  const [row] = await sql<{ hashes: number }>(`select count(distinct ticket_code_hash)::int as hashes from bookings where event_id = ?`, [event.id]);
  expect(row.hashes).toBe(60);
  const checked = await scan(ctx.app.client, 'rest', key, codes[17], event.slug);
  expect(checked.booking?.id).toBe(made[17].id);
});

test('read only with bookings:read: GraphQL answers FORBIDDEN at the field, REST leaves it out of the body', async () => {
  const { key, organization } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key);
  const writer = (await createApiKey(ctx.app.orm, organization.id, { permissions: ['bookings:write'] })).key;
  const viaGraphql = await ctx.app.client.graphql(writer, CREATE_WITH_CODE, { input: bookingInput(event.slug) });
  expect(viaGraphql.body.data.createBooking).toMatchObject({ status: 'CONFIRMED', ticketCode: null });
  expect(viaGraphql.body.errors).toEqual([
    expect.objectContaining({ path: ['createBooking', 'ticketCode'], extensions: expect.objectContaining({ code: 'FORBIDDEN', details: expect.objectContaining({ requiredPermission: 'bookings:read' }) }) }),
  ]);
  const viaRest = await ctx.app.client.rest('POST', `/v1/events/${event.slug}/bookings`, writer, { quantity: 1, attendeeEmail: 'a@example.com', attendeeName: 'A' });
  expect(viaRest.status).toBe(201);
  expect(viaRest.body).not.toHaveProperty('ticketCode');
  // Its code was issued all the same: a key that may read bookings reads it.
  expect(await codeOf(ctx.app.client, key, viaRest.body.id)).toMatch(TICKET_CODE);
  // A gate's key (checkin:write alone) checks in by code, and its answer carries no code either.
  const gate = (await createApiKey(ctx.app.orm, organization.id, { permissions: ['checkin:write'] })).key;
  const scanned = await scan(ctx.app.client, 'rest', gate, await codeOf(ctx.app.client, key, viaRest.body.id), event.slug);
  expect(scanned.status).toBe(200);
  expect(scanned.booking).not.toHaveProperty('ticketCode');
  expect(scanned.booking?.checkedInAt).not.toBeNull();
});

test('a hold has no code; it gets one when confirmed (GraphQL and REST), and keeps it on a retried confirmation', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key);
  const held = await book(key, event.slug, { hold: true });
  expect(held).toMatchObject({ status: 'HELD', ticketCode: null });
  expect((await sql<{ h: string | null }>('select ticket_code_hash as h from bookings where id = ?', [held.id]))[0].h).toBeNull();
  const confirmed = (await ctx.app.client.graphql(key, CONFIRM_WITH_CODE, { id: held.id })).body.data.confirmBooking;
  expect(confirmed.status).toBe('CONFIRMED');
  expect(confirmed.ticketCode).toMatch(TICKET_CODE);
  const again = await ctx.app.client.rest('POST', `/v1/bookings/${held.id}/confirm`, key);
  expect([again.status, again.body.ticketCode]).toEqual([200, confirmed.ticketCode]);

  const restHeld = await ctx.app.client.rest('POST', `/v1/events/${event.slug}/bookings`, key, { quantity: 1, attendeeEmail: 'h@example.com', attendeeName: 'H', hold: true });
  expect(restHeld.body.ticketCode).toBeNull();
  const restConfirmed = await ctx.app.client.rest('POST', `/v1/bookings/${restHeld.body.id}/confirm`, key);
  expect(restConfirmed.body.ticketCode).toMatch(TICKET_CODE);
  expect((await scan(ctx.app.client, 'graphql', key, restConfirmed.body.ticketCode, event.slug)).booking?.id).toBe(restHeld.body.id);
});

test('a waiting-list offer gets its code when its booking is confirmed', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { capacity: 1 });
  const taken = await book(key, event.slug);
  const joined = await ctx.app.client.rest('POST', `/v1/events/${event.slug}/waitlist`, key, { quantity: 1, attendeeEmail: 'w@example.com', attendeeName: 'Waiting' });
  expect(joined.status).toBe(201);
  await ctx.app.client.graphql(key, CANCEL_BOOKING, { id: taken.id });
  const [entry] = (await ctx.app.client.rest('GET', `/v1/events/${event.slug}/waitlist`, key)).body.entries;
  expect(entry.status).toBe('OFFERED');
  expect(await codeOf(ctx.app.client, key, entry.offeredBookingId)).toBeNull();
  const confirmed = await ctx.app.client.rest('POST', `/v1/bookings/${entry.offeredBookingId}/confirm`, key);
  expect(confirmed.body).toMatchObject({ status: 'CONFIRMED', ticketCode: expect.stringMatching(TICKET_CODE) });
  expect((await scan(ctx.app.client, 'rest', key, confirmed.body.ticketCode, event.slug)).status).toBe(200);
});

test('never in clear: not in any table, any webhook payload or any log line; an idempotent retry answers the same code', async () => {
  const { key, organization } = await tenantWithEndpoint();
  const event = await createPublishedEvent(ctx.app.client, key);
  const idempotencyKey = randomUUID();
  const first = await ctx.app.client.request('POST', `/v1/events/${event.slug}/bookings`, {
    headers: { authorization: `Bearer ${key}`, 'idempotency-key': idempotencyKey },
    json: { quantity: 1, attendeeEmail: 'a@example.com', attendeeName: 'A' },
  });
  const replayed = await ctx.app.client.request('POST', `/v1/events/${event.slug}/bookings`, {
    headers: { authorization: `Bearer ${key}`, 'idempotency-key': idempotencyKey },
    json: { quantity: 1, attendeeEmail: 'a@example.com', attendeeName: 'A' },
  });
  expect([replayed.status, replayed.text, replayed.headers['idempotent-replayed']]).toEqual([201, first.text, 'true']);
  const held = await book(key, event.slug, { hold: true });
  const confirmed = (await ctx.app.client.graphql(key, CONFIRM_WITH_CODE, { id: held.id })).body.data.confirmBooking;
  await scan(ctx.app.client, 'rest', key, confirmed.ticketCode, event.slug);
  const codes = [first.body.ticketCode as string, confirmed.ticketCode as string];
  for (const code of codes) expect(code).toMatch(TICKET_CODE);

  const delivered = await receiver.waitFor(
    (all) => all.filter((message) => message.path.endsWith(organization.id) && ['booking.created', 'booking.confirmed', 'booking.checked_in'].includes(message.json.type)).length >= 3,
  );
  const payloads = delivered.filter((message) => message.path.endsWith(organization.id));
  for (const message of payloads) {
    expect(message.json.data).not.toHaveProperty('ticketCode');
    for (const code of codes) expect(message.body).not.toContain(code);
  }
  const rows = await everyStoredRow(ctx.app.orm);
  for (const code of codes) {
    expect(rows.filter((row) => row.includes(code))).toEqual([]);
    expect(ctx.app.logs.filter((line) => line.includes(code))).toEqual([]);
  }
  // What is stored instead: the keyed hash, and the code sealed with the server secret.
  const [row] = await sql<{ ticket_code_hash: string; ticket_code_sealed: string }>('select ticket_code_hash, ticket_code_sealed from bookings where id = ?', [first.body.id]);
  expect(row.ticket_code_sealed).toMatch(/^v2:[0-9a-f]{12}:/);
  const codesOfServer = TicketCodes.of(ctx.app.service.secrets);
  expect(codesOfServer.lookupHashes(codes[0])[0]).toBe(row.ticket_code_hash);
  expect(codesOfServer.open(row.ticket_code_sealed)).toBe(codes[0]);
});

test('bookings CONFIRMED before ticket codes get theirs from the service (the migration has no secret); holds and cancelled ones do not', async () => {
  const { key, organization } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key);
  const id = (status: string) => `bk_before${status}${randomBytes(6).toString('hex')}`;
  const before = { confirmed: id('c'), cancelled: id('x'), held: id('h') };
  for (const [status, bookingId] of [['CONFIRMED', before.confirmed], ['CANCELLED', before.cancelled], ['HELD', before.held]] as const) {
    await sql(
      `insert into bookings (id, organization_id, event_id, quantity, attendee_email, attendee_name, status, created_at, expires_at)
       values (?, ?, ?, 1, 'old@example.com', 'Old', ?, now(), case when ? = 'HELD' then now() + interval '1 hour' end)`,
      [bookingId, organization.id, event.id, status, status],
    );
  }
  expect(await codeOf(ctx.app.client, key, before.confirmed)).toBeNull();
  expect(await anyCodelessBooking(ctx.app.orm.em.fork())).toBe(true);
  expect(await issueMissingTicketCodes(ctx.app.orm.em.fork(), TicketCodes.of(ctx.app.service.secrets), 2)).toBeGreaterThanOrEqual(1);
  expect(await anyCodelessBooking(ctx.app.orm.em.fork())).toBe(false);
  const code = await codeOf(ctx.app.client, key, before.confirmed);
  expect(code).toMatch(TICKET_CODE);
  expect(await codeOf(ctx.app.client, key, before.cancelled)).toBeNull();
  expect(await codeOf(ctx.app.client, key, before.held)).toBeNull();
  expect((await scan(ctx.app.client, 'graphql', key, code, event.slug)).booking?.id).toBe(before.confirmed);
  // Once done there is nothing left to do, and a second run changes no code.
  expect(await issueMissingTicketCodes(ctx.app.orm.em.fork(), TicketCodes.of(ctx.app.service.secrets))).toBe(0);
  expect(await codeOf(ctx.app.client, key, before.confirmed)).toBe(code);
});

test("another organization's key reads nothing of a booking, its code included", async () => {
  const { key } = await createTenant(ctx.app.orm);
  const other = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key);
  const booking = await book(key, event.slug);
  const read = await ctx.app.client.graphql(other.key, BOOKING_CODE, { id: booking.id });
  expect(read.body.errors[0].extensions.code).toBe('BOOKING_NOT_FOUND');
});
