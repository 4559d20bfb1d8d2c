import { randomBytes, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { sendAttendeesCsv } from '../src/doors/rest/attendees-csv';
import { attendeeBatches } from '../src/modules/booking/attendees.repository';
import { preparedStatements, type PreparedStatements } from '../src/platform/db/prepared-statements';
import type { RequestContext } from '../src/platform/graphql/request-context';
import { createPublishedEvent, ticket, type CreatedEvent } from './helpers/bookings';
import { createApiKey, createTenant, eventInput } from './helpers/factories';
import type { HttpResponse } from './helpers/https-client';
import { useTestApp } from './helpers/use-test-app';

// D23: bookings over REST, as entries of the route table over the GraphQL booking operations: every
// route, every transition and refusal, permissions, tenancy, validation, Idempotency-Key, Location;
// and attendees.csv (its format, refusals and the pipeline it goes through; the 100,000-row memory
// bound is test/bookings-attendees-csv.test.ts, on a server process of its own).
jest.setTimeout(60_000);

const ctx = useTestApp({}, { tenant: true });

/** The REST booking: the webhook payload's fields, in its order (booking.presenter.ts), then its ticketCode for a key holding bookings:read (D29). */
const BOOKING_FIELDS = [
  'id',
  'eventId',
  'eventSlug',
  'ticketTypeId',
  'quantity',
  'attendeeEmail',
  'attendeeName',
  'status',
  'createdAt',
  'cancelledAt',
  'expiresAt',
  'confirmedAt',
  'checkedInAt',
  'ticketCode',
];
const CSV_HEADER = 'id,attendeeName,attendeeEmail,ticketType,quantity,status,createdAt,checkedInAt';

const sql = <T>(text: string, values: unknown[] = []) => ctx.app.orm.em.fork().getConnection().execute<T[]>(text, values);
const rest = (method: string, path: string, json?: unknown, withKey: string = ctx.key) => ctx.app.client.rest(method, path, withKey, json);
const attendee = (overrides: Record<string, unknown> = {}) => ({ quantity: 1, attendeeEmail: 'ada@example.com', attendeeName: 'Ada Lovelace', ...overrides });
const book = (slug: string, overrides: Record<string, unknown> = {}, withKey = ctx.key) => rest('POST', `/v1/events/${slug}/bookings`, attendee(overrides), withKey);
const act = (id: string, action: 'confirm' | 'cancel' | 'check-in', withKey = ctx.key) => rest('POST', `/v1/bookings/${id}/${action}`, undefined, withKey);
const undo = (id: string, withKey = ctx.key) => rest('DELETE', `/v1/bookings/${id}/check-in`, undefined, withKey);
/** Ends a hold now, as time passing would: its expiresAt moved into the past. */
const lapse = (id: string) => sql(`update bookings set expires_at = now() - interval '1 second' where id = ?`, [id]);

function expectError(response: HttpResponse, status: number, code: string, details?: unknown): void {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  if (details !== undefined) expect(response.body.error.details).toEqual(details);
}

async function created(slug: string, overrides: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const response = await book(slug, overrides);
  expect(response.status).toBe(201);
  return response.body;
}

describe('routes and transitions', () => {
  let event: CreatedEvent;
  beforeAll(async () => {
    event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 50, ticketTypes: [ticket({ name: 'General', quantity: 40 })] });
  });

  test('POST /v1/events/{slug}/bookings: 201, Location /v1/bookings/{id}, the booking as its webhook payload shows it; GET answers the same', async () => {
    const ticketTypeId = event.ticketTypes[0].id;
    const response = await book(event.slug, { ticketTypeId, quantity: 2, attendeeName: '  Grace Hopper ' });
    expect(response.status).toBe(201);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const booking = response.body;
    expect(response.headers.location).toBe(`/v1/bookings/${booking.id}`);
    expect(Object.keys(booking)).toEqual(BOOKING_FIELDS);
    expect(booking).toMatchObject({
      eventId: event.id,
      eventSlug: event.slug,
      ticketTypeId,
      quantity: 2,
      attendeeName: 'Grace Hopper',
      status: 'CONFIRMED',
      cancelledAt: null,
      expiresAt: null,
      confirmedAt: null,
      checkedInAt: null,
    });
    expect(booking.id).toMatch(/^bk_/);
    expect(booking.ticketCode).toMatch(/^tk_[A-Za-z0-9]{24}$/);
    const read = await rest('GET', response.headers.location as string);
    expect(read.status).toBe(200);
    expect(read.text).toBe(response.text);
    // The same fields as GraphQL's booking(id), where ticketTypeId is also ticketType { id }.
    const graphql = await ctx.app.client.graphql(ctx.key, `query($id: ID!) { booking(id: $id) { ${BOOKING_FIELDS.join(' ')} ticketType { id } } }`, { id: booking.id });
    const { ticketType, ...fields } = graphql.body.data.booking;
    expect(fields).toEqual(booking);
    expect(ticketType.id).toBe(ticketTypeId);
    // Without a ticket type: null.
    expect((await created(event.slug)).ticketTypeId).toBeNull();
  });

  test('hold → confirm: HELD with expiresAt, then CONFIRMED with confirmedAt; confirming again answers it unchanged', async () => {
    const held = await created(event.slug, { hold: true, holdMinutes: 5 });
    expect(held).toMatchObject({ status: 'HELD', confirmedAt: null });
    expect(new Date(held.expiresAt).getTime() - new Date(held.createdAt).getTime()).toBe(5 * 60_000);
    const confirmed = await act(held.id, 'confirm');
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ id: held.id, status: 'CONFIRMED', expiresAt: held.expiresAt });
    expect(confirmed.body.confirmedAt).not.toBeNull();
    const again = await act(held.id, 'confirm');
    expect(again.status).toBe(200);
    expect(again.text).toBe(confirmed.text);
  });

  test('hold → cancel: CANCELLED, seats back; cancelled again 409 BOOKING_ALREADY_CANCELLED; confirm 409 BOOKING_NOT_HELD', async () => {
    const held = await created(event.slug, { hold: true, quantity: 3 });
    const cancelled = await act(held.id, 'cancel');
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: held.id, status: 'CANCELLED' });
    expect(cancelled.body.cancelledAt).not.toBeNull();
    expectError(await act(held.id, 'cancel'), 409, 'BOOKING_ALREADY_CANCELLED', { id: held.id, cancelledAt: cancelled.body.cancelledAt });
    expectError(await act(held.id, 'confirm'), 409, 'BOOKING_NOT_HELD', { id: held.id, status: 'CANCELLED' });
    const read = await rest('GET', `/v1/bookings/${held.id}`);
    expect(read.body.status).toBe('CANCELLED');
  });

  test('a lapsed hold: reads EXPIRED; confirm and cancel are 409 HOLD_EXPIRED with expiresAt; check-in 409 BOOKING_NOT_CONFIRMED', async () => {
    const held = await created(event.slug, { hold: true });
    await lapse(held.id);
    const read = await rest('GET', `/v1/bookings/${held.id}`);
    expect(read.body.status).toBe('EXPIRED');
    const { expiresAt } = read.body;
    expect(new Date(expiresAt).getTime()).toBeLessThan(Date.now());
    expectError(await act(held.id, 'confirm'), 409, 'HOLD_EXPIRED', { id: held.id, expiresAt });
    expectError(await act(held.id, 'cancel'), 409, 'HOLD_EXPIRED', { id: held.id, expiresAt });
    expectError(await act(held.id, 'check-in'), 409, 'BOOKING_NOT_CONFIRMED', { status: 'EXPIRED' });
  });

  test('check-in → again 409 ALREADY_CHECKED_IN → DELETE undoes it (200, the booking) → DELETE again 409 NOT_CHECKED_IN → check in again', async () => {
    const booking = await created(event.slug);
    const checkedIn = await act(booking.id, 'check-in');
    expect(checkedIn.status).toBe(200);
    expect(Object.keys(checkedIn.body)).toEqual(BOOKING_FIELDS);
    const { checkedInAt } = checkedIn.body;
    expect(checkedInAt).not.toBeNull();
    expectError(await act(booking.id, 'check-in'), 409, 'ALREADY_CHECKED_IN', { checkedInAt });
    const undone = await undo(booking.id);
    expect(undone.status).toBe(200);
    expect(undone.body).toMatchObject({ id: booking.id, status: 'CONFIRMED', checkedInAt: null });
    expectError(await undo(booking.id), 409, 'NOT_CHECKED_IN');
    expect((await act(booking.id, 'check-in')).status).toBe(200);
    // A HELD booking is not checked in, nor undone.
    const held = await created(event.slug, { hold: true });
    expectError(await act(held.id, 'check-in'), 409, 'BOOKING_NOT_CONFIRMED', { status: 'HELD' });
    expectError(await undo(held.id), 409, 'BOOKING_NOT_CONFIRMED', { status: 'HELD' });
  });

  test('refusals of a create: SOLD_OUT with its details, EVENT_NOT_PUBLISHED, EVENT_NOT_FOUND, TICKET_TYPE_NOT_FOUND; nothing stored', async () => {
    const small = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 3 });
    expect((await book(small.slug, { quantity: 2 })).status).toBe(201);
    expectError(await book(small.slug, { quantity: 2 }), 409, 'SOLD_OUT', { limitedBy: 'capacity', available: 1, requested: 2 });
    expectError(await book(small.slug, { quantity: 2, hold: true }), 409, 'SOLD_OUT');
    const draft = await rest('POST', '/v1/events', eventInput());
    expectError(await book(draft.body.slug), 409, 'EVENT_NOT_PUBLISHED', { slug: draft.body.slug, status: 'DRAFT' });
    expectError(await book('no-such-event'), 404, 'EVENT_NOT_FOUND', { slug: 'no-such-event' });
    expectError(await book(small.slug, { ticketTypeId: 'tt_doesnotexist' }), 404, 'TICKET_TYPE_NOT_FOUND', { id: 'tt_doesnotexist' });
    const [{ count }] = await sql<{ count: string }>('select count(*) from bookings where event_id = ?', [small.id]);
    expect(Number(count)).toBe(1);
  });

  test('GET /v1/events/{slug}/bookings: {bookings, total, page, limit, nextCursor}, newest first, status filter, pages', async () => {
    const listed = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 20 });
    const first = await created(listed.slug, { attendeeName: 'First' });
    const second = await created(listed.slug, { attendeeName: 'Second', hold: true });
    const third = await created(listed.slug, { attendeeName: 'Third' });
    expect((await act(third.id, 'cancel')).status).toBe(200);
    const all = await rest('GET', `/v1/events/${listed.slug}/bookings`);
    expect(all.status).toBe(200);
    expect(Object.keys(all.body)).toEqual(['bookings', 'total', 'page', 'limit', 'nextCursor']);
    expect(all.body).toMatchObject({ total: 3, page: 1, limit: 20 });
    expect(all.body.bookings.map((booking: { id: string }) => booking.id)).toEqual([third.id, second.id, first.id]);
    for (const booking of all.body.bookings) expect(Object.keys(booking)).toEqual(BOOKING_FIELDS);
    const one = (await rest('GET', `/v1/events/${listed.slug}/bookings?status=CONFIRMED`)).body;
    expect([one.total, one.bookings.map((booking: { id: string }) => booking.id)]).toEqual([1, [first.id]]);
    const held = (await rest('GET', `/v1/events/${listed.slug}/bookings?status=HELD`)).body;
    expect(held.bookings.map((booking: { id: string }) => booking.id)).toEqual([second.id]);
    const page = (await rest('GET', `/v1/events/${listed.slug}/bookings?page=2&limit=2`)).body;
    expect(page).toMatchObject({ total: 3, page: 2, limit: 2 });
    expect(page.bookings.map((booking: { id: string }) => booking.id)).toEqual([first.id]);
  });

  test('405 with Allow for a method a booking path does not have; OPTIONS lists them', async () => {
    const booking = await created(event.slug);
    const put = await rest('PUT', `/v1/bookings/${booking.id}`, {});
    expectError(put, 405, 'METHOD_NOT_ALLOWED', { allowed: ['GET', 'HEAD', 'OPTIONS'] });
    expect(put.headers.allow).toBe('GET, HEAD, OPTIONS');
    const options = await ctx.app.client.request('OPTIONS', `/v1/bookings/${booking.id}/check-in`);
    expect([options.status, options.headers.allow]).toEqual([204, 'POST, DELETE, OPTIONS']);
    expect((await rest('GET', `/v1/bookings/${booking.id}/confirm`)).status).toBe(405);
  });
});

describe('validation: 400 VALIDATION_ERROR naming every failing field, as the REST request names it', () => {
  let event: CreatedEvent;
  beforeAll(async () => {
    event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 10 });
  });
  const fields = (response: HttpResponse) => {
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    return response.body.error.details.errors.map((error: { field: string }) => error.field).sort();
  };

  test('the body: every field at once; holdMinutes only with hold and up to the organization setting; not an object', async () => {
    expect(fields(await rest('POST', `/v1/events/${event.slug}/bookings`, { quantity: 0, attendeeEmail: 'not-an-email', attendeeName: '   ' }))).toEqual([
      'attendeeEmail',
      'attendeeName',
      'quantity',
    ]);
    expect(fields(await rest('POST', `/v1/events/${event.slug}/bookings`, {}))).toEqual(['attendeeEmail', 'attendeeName', 'quantity']);
    expect(fields(await book(event.slug, { quantity: 'two' }))).toEqual(['quantity']);
    expect(fields(await book(event.slug, { holdMinutes: 5 }))).toEqual(['holdMinutes']);
    expect((await book(event.slug, { hold: true, holdMinutes: 16 })).body.error.details.errors).toEqual([
      { field: 'holdMinutes', message: "holdMinutes must be at most 15 (the organization's holdMinutes)" },
    ]);
    expect(fields(await rest('POST', `/v1/events/${event.slug}/bookings`, [attendee()]))).toEqual(['body']);
    // Lengths in code points, as PostgreSQL counts them (a variation selector is a character of its own).
    // (class-validator's MaxLength counted 150 here, and PostgreSQL's varchar(200) refused the row.)
    expect(fields(await book(event.slug, { attendeeName: 'a\uFE0F'.repeat(150) }))).toEqual(['attendeeName']);
    const [{ count }] = await sql<{ count: string }>('select count(*) from bookings where event_id = ?', [event.id]);
    expect(Number(count)).toBe(0);
    const longest = await book(event.slug, { attendeeName: '\u{1F600}'.repeat(200) });
    expect(longest.status).toBe(201);
    expect(longest.body.attendeeName).toBe('\u{1F600}'.repeat(200));
  });

  test('the path: a malformed slug is `slug`, a malformed id `id`; eventSlug in a body is the path`s, never the body`s', async () => {
    const badSlug = await book('Not-A-Slug');
    expect(badSlug.body.error.details.errors).toEqual([{ field: 'slug', message: 'slug must be an event slug: lower-case letters and digits joined by single hyphens' }]);
    expect(fields(await rest('GET', '/v1/events/Not-A-Slug/bookings'))).toEqual(['slug']);
    for (const response of [await rest('GET', '/v1/bookings/nope'), await act('evt_abc', 'confirm'), await act('nope', 'cancel'), await act('x', 'check-in'), await undo('x')]) {
      expect(response.body.error.details.errors).toEqual([{ field: 'id', message: 'id must be an id starting with bk_' }]);
    }
    const other = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 10 });
    const booking = await book(event.slug, { eventSlug: other.slug });
    expect(booking.status).toBe(201);
    expect(booking.body.eventSlug).toBe(event.slug);
  });

  test('the list: page, limit and status like the events list', async () => {
    const path = `/v1/events/${event.slug}/bookings`;
    expect(fields(await rest('GET', `${path}?page=0&limit=101`))).toEqual(['limit', 'page']);
    expect(fields(await rest('GET', `${path}?limit=abc`))).toEqual(['limit']);
    const status = await rest('GET', `${path}?status=confirmed`);
    expect(status.body.error.details.errors).toEqual([{ field: 'status', message: 'status must be one of HELD, CONFIRMED, CANCELLED, EXPIRED' }]);
    expect((await rest('GET', `${path}?status=EXPIRED&page=1000000&limit=100`)).body).toEqual({ bookings: [], total: 0, page: 1_000_000, limit: 100, nextCursor: null });
  });
});

describe('permissions and tenancy, as for events', () => {
  test('bookings:read reads, bookings:write books, confirms and cancels, checkin:write checks in; else 403 FORBIDDEN naming the permission', async () => {
    const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 10 });
    const booking = await created(event.slug);
    const held = await created(event.slug, { hold: true });
    const eventsOnly = (await createApiKey(ctx.app.orm, ctx.organizationId, { permissions: ['events:read', 'events:write'] })).key;
    const reader = (await createApiKey(ctx.app.orm, ctx.organizationId, { permissions: ['bookings:read'] })).key;
    const writer = (await createApiKey(ctx.app.orm, ctx.organizationId, { permissions: ['bookings:write'] })).key;
    const forbidden = (response: HttpResponse, permission: string, current: string[]) =>
      expectError(response, 403, 'FORBIDDEN', { requiredPermission: permission, currentPermissions: current });

    forbidden(await rest('GET', `/v1/events/${event.slug}/bookings`, undefined, eventsOnly), 'bookings:read', ['events:read', 'events:write']);
    forbidden(await rest('GET', `/v1/bookings/${booking.id}`, undefined, eventsOnly), 'bookings:read', ['events:read', 'events:write']);
    forbidden(await ctx.app.client.request('GET', `/v1/events/${event.slug}/attendees.csv`, { headers: { authorization: `Bearer ${eventsOnly}` } }), 'bookings:read', [
      'events:read',
      'events:write',
    ]);
    forbidden(await book(event.slug, {}, reader), 'bookings:write', ['bookings:read']);
    forbidden(await act(held.id, 'confirm', reader), 'bookings:write', ['bookings:read']);
    forbidden(await act(booking.id, 'cancel', reader), 'bookings:write', ['bookings:read']);
    forbidden(await act(booking.id, 'check-in', writer), 'checkin:write', ['bookings:write']);
    forbidden(await undo(booking.id, writer), 'checkin:write', ['bookings:write']);
    // Permission before input: a key without it never learns whether its input was valid.
    forbidden(await rest('POST', `/v1/events/${event.slug}/bookings`, { quantity: 0 }, reader), 'bookings:write', ['bookings:read']);
    forbidden(await act('nope', 'check-in', writer), 'checkin:write', ['bookings:write']);

    expect((await rest('GET', `/v1/bookings/${booking.id}`, undefined, reader)).status).toBe(200);
    expect((await rest('GET', `/v1/events/${event.slug}/bookings`, undefined, reader)).status).toBe(200);
    expect((await book(event.slug, {}, writer)).status).toBe(201);
    expect((await act(held.id, 'confirm', writer)).status).toBe(200);
    // Nothing changed by the refusals.
    expect((await rest('GET', `/v1/bookings/${booking.id}`)).body).toMatchObject({ status: 'CONFIRMED', checkedInAt: null });

    const noKey = await ctx.app.client.request('GET', `/v1/bookings/${booking.id}`);
    expectError(noKey, 401, 'UNAUTHORIZED');
    expectError(await ctx.app.client.request('POST', `/v1/bookings/${booking.id}/cancel`, { headers: { authorization: 'Bearer nk_test_0000000000000000000000000000000' } }), 401, 'INVALID_API_KEY');
  });

  test("another organization's booking is 404 BOOKING_NOT_FOUND on every route, its event 404 EVENT_NOT_FOUND; nothing changes", async () => {
    const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 10 });
    const booking = await created(event.slug);
    const held = await created(event.slug, { hold: true });
    const other = (await createTenant(ctx.app.orm)).key;
    const notFound = (response: HttpResponse, id: string) => expectError(response, 404, 'BOOKING_NOT_FOUND', { id });
    notFound(await rest('GET', `/v1/bookings/${booking.id}`, undefined, other), booking.id);
    notFound(await act(held.id, 'confirm', other), held.id);
    notFound(await act(booking.id, 'cancel', other), booking.id);
    notFound(await act(booking.id, 'check-in', other), booking.id);
    notFound(await undo(booking.id, other), booking.id);
    notFound(await rest('GET', '/v1/bookings/bk_doesnotexist'), 'bk_doesnotexist');
    expectError(await rest('GET', `/v1/events/${event.slug}/bookings`, undefined, other), 404, 'EVENT_NOT_FOUND', { slug: event.slug });
    expectError(await book(event.slug, {}, other), 404, 'EVENT_NOT_FOUND', { slug: event.slug });
    expectError(
      await ctx.app.client.request('GET', `/v1/events/${event.slug}/attendees.csv`, { headers: { authorization: `Bearer ${other}` } }),
      404,
      'EVENT_NOT_FOUND',
      { slug: event.slug },
    );
    const rows = await sql<{ id: string; status: string; checked_in_at: Date | null }>('select id, status, checked_in_at from bookings where event_id = ?', [event.id]);
    expect(Object.fromEntries(rows.map((row) => [row.id, [row.status, row.checked_in_at]]))).toEqual({ [booking.id]: ['CONFIRMED', null], [held.id]: ['HELD', null] });
  });
});

describe('Idempotency-Key, as for events', () => {
  const keyed = (method: string, path: string, idempotencyKey: string, json?: unknown) =>
    ctx.app.client.request(method, path, { headers: { authorization: `Bearer ${ctx.key}`, 'idempotency-key': idempotencyKey }, ...(json === undefined ? {} : { json }) });

  test('a create retried with the same key replays its 201, body and Location; one booking, its seats counted once', async () => {
    const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 5 });
    const idempotencyKey = randomUUID();
    const path = `/v1/events/${event.slug}/bookings`;
    const first = await keyed('POST', path, idempotencyKey, attendee({ quantity: 2, hold: true }));
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await keyed('POST', path, idempotencyKey, attendee({ quantity: 2, hold: true }));
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.location).toBe(`/v1/bookings/${first.body.id}`);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    const [{ count }] = await sql<{ count: string }>('select count(*) from bookings where event_id = ?', [event.id]);
    expect(Number(count)).toBe(1);
    expectError(await keyed('POST', path, idempotencyKey, attendee({ quantity: 3 })), 422, 'IDEMPOTENCY_KEY_REUSED');

    // Confirm with a key: the retry replays it (not the unchanged answer of a second run).
    const confirmKey = randomUUID();
    const confirmed = await keyed('POST', `/v1/bookings/${first.body.id}/confirm`, confirmKey);
    expect(confirmed.status).toBe(200);
    const replayed = await keyed('POST', `/v1/bookings/${first.body.id}/confirm`, confirmKey);
    expect([replayed.status, replayed.text, replayed.headers['idempotent-replayed']]).toEqual([200, confirmed.text, 'true']);
    // The same key on another booking's path is another request.
    expectError(await keyed('POST', `/v1/bookings/${(await created(event.slug)).id}/confirm`, confirmKey), 422, 'IDEMPOTENCY_KEY_REUSED');
  });

  test('a refusal is stored and replayed too (409 on cancel twice), and a DELETE replays its 200', async () => {
    const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 5 });
    const booking = await created(event.slug);
    expect((await act(booking.id, 'cancel')).status).toBe(200);
    const cancelKey = randomUUID();
    const refused = await keyed('POST', `/v1/bookings/${booking.id}/cancel`, cancelKey);
    expectError(refused, 409, 'BOOKING_ALREADY_CANCELLED');
    const again = await keyed('POST', `/v1/bookings/${booking.id}/cancel`, cancelKey);
    expect([again.status, again.text, again.headers['idempotent-replayed']]).toEqual([409, refused.text, 'true']);

    const checked = await created(event.slug);
    expect((await act(checked.id, 'check-in')).status).toBe(200);
    const undoKey = randomUUID();
    const undone = await keyed('DELETE', `/v1/bookings/${checked.id}/check-in`, undoKey);
    expect(undone.status).toBe(200);
    const replay = await keyed('DELETE', `/v1/bookings/${checked.id}/check-in`, undoKey);
    expect([replay.status, replay.text, replay.headers['idempotent-replayed']]).toEqual([200, undone.text, 'true']);
    // A read ignores the header, even a malformed one.
    expect((await keyed('GET', `/v1/bookings/${checked.id}`, 'k'.repeat(256))).status).toBe(200);
  });
});

describe('GET /v1/events/{slug}/attendees.csv', () => {
  const csv = (slug: string, withKey: string = ctx.key, method = 'GET') =>
    ctx.app.client.request(method, `/v1/events/${slug}/attendees.csv`, { headers: { authorization: `Bearer ${withKey}` } });
  /** RFC 4180 records (quoted fields may hold commas, quotes and line breaks). */
  function records(text: string): string[][] {
    const rows: string[][] = [];
    let row: string[] = [];
    let cell = '';
    let quoted = false;
    for (let index = 0; index < text.length; index += 1) {
      const char = text[index];
      if (quoted) {
        if (char === '"' && text[index + 1] === '"') {
          cell += '"';
          index += 1;
        } else if (char === '"') quoted = false;
        else cell += char;
      } else if (char === '"') quoted = true;
      else if (char === ',') {
        row.push(cell);
        cell = '';
      } else if (char === '\r' && text[index + 1] === '\n') {
        row.push(cell);
        rows.push(row);
        row = [];
        cell = '';
        index += 1;
      } else cell += char;
    }
    expect([row, cell]).toEqual([[], '']); // every record ends with CRLF
    return rows;
  }

  test('every CONFIRMED booking, oldest first, with its ticket type name; held, cancelled and expired ones left out; headers', async () => {
    const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 50, ticketTypes: [ticket({ name: 'VIP, front row', quantity: 10 })] });
    const first = await created(event.slug, { ticketTypeId: event.ticketTypes[0].id, quantity: 2, attendeeName: 'Ada Lovelace' });
    const untyped = await created(event.slug, { attendeeName: 'Grace Hopper', attendeeEmail: 'grace@example.com' });
    await created(event.slug, { hold: true });
    const lapsed = await created(event.slug, { hold: true });
    await lapse(lapsed.id);
    expect((await act((await created(event.slug)).id, 'cancel')).status).toBe(200);
    const confirmedHold = await created(event.slug, { hold: true, attendeeName: 'Held Then Confirmed' });
    expect((await act(confirmedHold.id, 'confirm')).status).toBe(200);
    const checkedIn = await act(untyped.id, 'check-in');

    const response = await csv(event.slug).catch((error) => {
      throw new Error(`${error}: ${ctx.app.logs.filter((line) => /"level":50/.test(line)).join('\n')}`);
    });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="${event.slug}-attendees.csv"`);
    expect(response.headers['cache-control']).toBe('no-store');
    // The pipeline's steps: request id, the organization's rate budget.
    expect(response.headers['x-request-id']).toBeDefined();
    expect(response.headers['ratelimit-remaining']).toBeDefined();
    expect(response.text.startsWith(`${CSV_HEADER}\r\n`)).toBe(true);
    expect(records(response.text)).toEqual([
      CSV_HEADER.split(','),
      [first.id, 'Ada Lovelace', 'ada@example.com', 'VIP, front row', '2', 'CONFIRMED', first.createdAt, ''],
      [untyped.id, 'Grace Hopper', 'grace@example.com', '', '1', 'CONFIRMED', untyped.createdAt, checkedIn.body.checkedInAt],
      [confirmedHold.id, 'Held Then Confirmed', 'ada@example.com', '', '1', 'CONFIRMED', confirmedHold.createdAt, ''],
    ]);
    // The raw line of a quoted cell.
    expect(response.text).toContain(`,"VIP, front row",2,`);

    // The access line, written when the answer has ended.
    const accessLine = () => ctx.app.logs.map((text) => JSON.parse(text)).find((entry) => entry.route === '/v1/events/:slug/attendees.csv' && entry.status === 200);
    for (let tries = 0; tries < 50 && !accessLine(); tries += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(accessLine()).toMatchObject({ msg: 'request', operation: 'AttendeesCsv', organizationId: ctx.organizationId });

    const head = await csv(event.slug, ctx.key, 'HEAD');
    expect([head.status, head.text, head.headers['content-type']]).toEqual([200, '', 'text/csv; charset=utf-8']);
    // No confirmed booking: the header row alone.
    const empty = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 5 });
    expect((await csv(empty.slug)).text).toBe(`${CSV_HEADER}\r\n`);
  });

  test('RFC 4180 quoting and formula injection neutralized (= + - @ tab CR get a leading apostrophe)', async () => {
    const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 50, ticketTypes: [ticket({ name: '=HYPERLINK("http://evil")', quantity: 10 })] });
    const names = ['=1+1', '+SUM(A1)', '-2+3', '@cmd', '\tTabbed', 'Quote "me", please', 'Line\nbreak', 'Plain Name', "O'Brien"];
    const made: Array<Record<string, any>> = [];
    for (const name of names) made.push(await created(event.slug, { attendeeName: name }));
    made.push(await created(event.slug, { attendeeName: 'Typed', attendeeEmail: '=x@example.com', ticketTypeId: event.ticketTypes[0].id }));
    // A tab or a carriage return first: only SQL writes one (the API trims names).
    await sql(`update bookings set attendee_name = ? where id = ?`, ['\tTabbed', made[4].id]);
    await sql(`update bookings set attendee_name = ? where id = ?`, ['\rReturn', made[7].id]);

    const text = (await csv(event.slug)).text;
    const rows = records(text).slice(1);
    expect(rows.map((row) => row[1])).toEqual([
      "'=1+1",
      "'+SUM(A1)",
      "'-2+3",
      "'@cmd",
      "'\tTabbed",
      'Quote "me", please',
      'Line\nbreak',
      "'\rReturn",
      "O'Brien",
      'Typed',
    ]);
    const typed = rows[rows.length - 1];
    expect([typed[2], typed[3]]).toEqual(["'=x@example.com", '\'=HYPERLINK("http://evil")']);
    // As written: quotes doubled, the cell quoted; a line break inside quotes.
    expect(text).toContain(',"Quote ""me"", please",');
    expect(text).toContain(',"Line\nbreak",');
    expect(text).toContain(`,"'\rReturn",`);
    expect(text).toContain(`,"'=HYPERLINK(""http://evil"")",`);
  });

  test('refusals in the envelope before any byte: 401, 400 on slug, 404 for an unknown slug; 405 for another method', async () => {
    expectError(await ctx.app.client.request('GET', '/v1/events/any-event/attendees.csv'), 401, 'UNAUTHORIZED');
    const bad = await csv('Bad_Slug');
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(bad.body.error.details.errors).toEqual([{ field: 'slug', message: 'slug must be an event slug: lower-case letters and digits joined by single hyphens' }]);
    expectError(await csv('no-such-event'), 404, 'EVENT_NOT_FOUND', { slug: 'no-such-event' });
    const post = await ctx.app.client.request('POST', '/v1/events/any-event/attendees.csv', { headers: { authorization: `Bearer ${ctx.key}` } });
    expectError(post, 405, 'METHOD_NOT_ALLOWED', { allowed: ['GET', 'HEAD', 'OPTIONS'] });
  });

  test('the batches (keyset by created_at, id) list every row once, also with equal times across a batch boundary', async () => {
    const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 100 });
    const ids = Array.from({ length: 7 }, (_, index) => `bk_rest${index}${randomBytes(4).toString('hex')}`);
    // Seven confirmed rows sharing two instants (microseconds included), and one cancelled among them.
    await sql(
      `insert into bookings (id, organization_id, event_id, quantity, attendee_email, attendee_name, status, created_at)
       select id, ?, ?, 1, 'x@example.com', 'Row', 'CONFIRMED', case when n < 4 then timestamptz '2026-01-01 10:00:00.123456+00' else timestamptz '2026-01-01 10:00:00.123457+00' end
       from unnest(string_to_array(?, ',')) with ordinality as t(id, n)`,
      [ctx.organizationId, event.id, ids.join(',')],
    );
    await sql(`update bookings set status = 'CANCELLED', cancelled_at = now() where id = ?`, [ids[2]]);
    const expected = ids.filter((id) => id !== ids[2]);
    const byTime = (list: string[]) => [...list.slice(0, 2).sort(), ...list.slice(2).sort()];
    for (const size of [1, 2, 3, 10]) {
      const seen: string[] = [];
      const sizes: number[] = [];
      for await (const batch of attendeeBatches(preparedStatements(ctx.app.orm.em.fork()), ctx.organizationId, event.id, size)) {
        sizes.push(batch.length);
        seen.push(...batch.map((row) => row.id));
      }
      expect(seen).toEqual(byTime(expected));
      expect(Math.max(...sizes)).toBeLessThanOrEqual(size);
    }
    // Another organization sees nothing of it.
    const stranger = (await createTenant(ctx.app.orm)).organization.id;
    const none: unknown[] = [];
    for await (const batch of attendeeBatches(preparedStatements(ctx.app.orm.em.fork()), stranger, event.id)) none.push(...batch);
    expect(none).toEqual([]);
  });

  /** A response whose client reads only when told to: its writes wait (write() answers false) until then. */
  class SlowClient extends Writable {
    statusCode = 0;
    readonly headers: Record<string, unknown> = {};
    readonly req = { method: 'GET' };
    text = '';
    private reading = false;
    private waiting: Array<() => void> = [];
    constructor() {
      super({ highWaterMark: 16 * 1024, decodeStrings: false });
    }
    setHeader(name: string, value: unknown): this {
      this.headers[name.toLowerCase()] = value;
      return this;
    }
    override _write(chunk: string, _encoding: BufferEncoding, done: () => void): void {
      this.text += chunk;
      if (this.reading) done();
      else this.waiting.push(done);
    }
    read(): void {
      this.reading = true;
      for (const done of this.waiting.splice(0)) done();
    }
  }

  // Changes legitimately with ATTENDEE_BATCH_SIZE (1,000 rows a statement); reading ahead of a client that does not read is the regression.
  test('performance guard: backpressure: no further batch is read while the client does not read; then every row', async () => {
    const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 10_000 });
    await sql(
      `insert into bookings (id, organization_id, event_id, quantity, attendee_email, attendee_name, status, created_at)
       select 'bk_bp' || lpad(g::text, 6, '0'), ?, ?, 1, 'bp@example.com', 'Back Pressure', 'CONFIRMED', timestamptz '2026-01-01 00:00:00+00' + g * interval '1 ms'
       from generate_series(1, 3500) g`,
      [ctx.organizationId, event.id],
    );
    const em = ctx.app.orm.em.fork();
    const reads = preparedStatements(em);
    let statements = 0;
    const counted: PreparedStatements = { query: (text, values) => ((statements += 1), reads.query(text, values)) };
    const context = { em, reads: counted, auth: { organization: { id: ctx.organizationId } }, requestId: 'backpressure' } as unknown as RequestContext;
    const client = new SlowClient();
    const sent = sendAttendeesCsv(client as unknown as ServerResponse, context, { slug: event.slug });
    await new Promise((resolve) => setTimeout(resolve, 500));
    // The first batch (1,000 rows, about 70 kB) is written, the client reads nothing: the door waits.
    expect(statements).toBe(1);
    expect(client.writableNeedDrain).toBe(true);
    client.read();
    await sent;
    expect(statements).toBe(4); // 1,000 + 1,000 + 1,000 + 500 rows
    expect(client.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = client.text.split('\r\n');
    expect(lines).toHaveLength(3_502);
    expect(lines[3_500]).toBe('bk_bp003500,Back Pressure,bp@example.com,,1,CONFIRMED,2026-01-01T00:00:03.500Z,');
  });

  test('a failure once the file has begun cuts the response (destroyed, never ended cleanly) and goes on to the log', async () => {
    const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 10_000 });
    await sql(
      `insert into bookings (id, organization_id, event_id, quantity, attendee_email, attendee_name, status, created_at)
       select 'bk_cut' || lpad(g::text, 6, '0'), ?, ?, 1, 'cut@example.com', 'Cut', 'CONFIRMED', now() + g * interval '1 ms' from generate_series(1, 1500) g`,
      [ctx.organizationId, event.id],
    );
    const em = ctx.app.orm.em.fork();
    const reads = preparedStatements(em);
    let statements = 0;
    // The second batch's statement fails as a database gone away would.
    const failing: PreparedStatements = {
      query: (text, values) => (++statements === 2 ? Promise.reject(new Error('connection terminated')) : reads.query(text, values)),
    };
    const context = { em, reads: failing, auth: { organization: { id: ctx.organizationId } }, requestId: 'cut' } as unknown as RequestContext;
    const client = new SlowClient();
    client.read();
    let ended = false;
    client.on('finish', () => (ended = true));
    await expect(sendAttendeesCsv(client as unknown as ServerResponse, context, { slug: event.slug })).rejects.toThrow('connection terminated');
    expect(client.destroyed).toBe(true);
    expect(ended).toBe(false);
    expect(client.text.split('\r\n')).toHaveLength(1_002); // the header and the first batch, no end
  });
});
