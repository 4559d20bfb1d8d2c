import { randomUUID } from 'node:crypto';
import { createPublishedEvent } from './helpers/bookings';
import { createApiKey, createTenant } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';

// D21 over REST (D23): GET / POST /v1/events/{slug}/waitlist and DELETE /v1/waitlist/{id}, entries of
// the route table over the GraphQL waiting-list operations: the same rules, codes and permissions,
// in the REST envelope, with Idempotency-Key.
jest.setTimeout(60_000);

const ctx = useTestApp({}, { tenant: true });

const person = (name: string, quantity = 1) => ({ quantity, attendeeEmail: `${name}@example.com`, attendeeName: name });

test('join a sold-out event (201, entry WAITING with its position), list in join order, leave (200, LEFT)', async () => {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 1 });
  expect((await ctx.app.client.rest('POST', `/v1/events/${event.slug}/bookings`, ctx.key, person('first'))).status).toBe(201);

  const ada = await ctx.app.client.rest('POST', `/v1/events/${event.slug}/waitlist`, ctx.key, person('ada'));
  expect(ada.status).toBe(201);
  expect(ada.body).toMatchObject({ id: expect.stringMatching(/^wl_/), eventSlug: event.slug, status: 'WAITING', position: 1, quantity: 1, offeredBookingId: null });
  const grace = await ctx.app.client.rest('POST', `/v1/events/${event.slug}/waitlist`, ctx.key, person('grace', 1));
  expect(grace.body.position).toBe(2);

  const listed = await ctx.app.client.rest('GET', `/v1/events/${event.slug}/waitlist?limit=10`, ctx.key);
  expect(listed.status).toBe(200);
  expect(listed.body).toMatchObject({ total: 2, page: 1, limit: 10 });
  expect(listed.body.entries.map((entry: { id: string; position: number }) => [entry.id, entry.position])).toEqual([
    [ada.body.id, 1],
    [grace.body.id, 2],
  ]);

  const left = await ctx.app.client.rest('DELETE', `/v1/waitlist/${ada.body.id}`, ctx.key);
  expect(left.status).toBe(200);
  expect(left.body).toMatchObject({ id: ada.body.id, status: 'LEFT', position: null });
  const after = await ctx.app.client.rest('GET', `/v1/events/${event.slug}/waitlist?status=WAITING`, ctx.key);
  expect(after.body.entries.map((entry: { id: string; position: number }) => [entry.id, entry.position])).toEqual([[grace.body.id, 1]]);
});

test('refusals in the envelope: SEATS_AVAILABLE (409), unknown or foreign event and entry (404), malformed input (400), permissions (403)', async () => {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 5 });
  const open = await ctx.app.client.rest('POST', `/v1/events/${event.slug}/waitlist`, ctx.key, person('early'));
  expect(open.status).toBe(409);
  expect(open.body.error).toMatchObject({ code: 'SEATS_AVAILABLE', details: expect.objectContaining({ requested: 1 }) });

  const { key: otherKey } = await createTenant(ctx.app.orm);
  expect((await ctx.app.client.rest('POST', `/v1/events/${event.slug}/waitlist`, otherKey, person('other'))).body.error.code).toBe('EVENT_NOT_FOUND');
  expect((await ctx.app.client.rest('GET', `/v1/events/${event.slug}/waitlist`, otherKey)).status).toBe(404);
  expect((await ctx.app.client.rest('DELETE', '/v1/waitlist/wl_doesnotexist0000000000', ctx.key)).body.error.code).toBe('WAITLIST_ENTRY_NOT_FOUND');

  const invalid = await ctx.app.client.rest('POST', `/v1/events/${event.slug}/waitlist`, ctx.key, { quantity: 0, attendeeEmail: 'nope', attendeeName: '' });
  expect(invalid.status).toBe(400);
  expect(invalid.body.error.details.errors.map((error: { field: string }) => error.field).sort()).toEqual(['attendeeEmail', 'attendeeName', 'quantity']);

  const reader = await createApiKey(ctx.app.orm, (await createTenant(ctx.app.orm)).organization.id, { permissions: ['bookings:read'] });
  const forbidden = await ctx.app.client.rest('POST', `/v1/events/${event.slug}/waitlist`, reader.key, person('reader'));
  expect([forbidden.status, forbidden.body.error.code]).toEqual([403, 'FORBIDDEN']);
});

test('a join retried with the same Idempotency-Key joins once and replays the first answer', async () => {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 1 });
  await ctx.app.client.rest('POST', `/v1/events/${event.slug}/bookings`, ctx.key, person('first'));
  const idempotencyKey = randomUUID();
  const join = () =>
    ctx.app.client.request('POST', `/v1/events/${event.slug}/waitlist`, {
      headers: { authorization: `Bearer ${ctx.key}`, 'idempotency-key': idempotencyKey },
      json: person('retry'),
    });
  const first = await join();
  const retry = await join();
  expect(first.status).toBe(201);
  expect([retry.status, retry.headers['idempotent-replayed'], retry.text]).toEqual([201, 'true', first.text]);
  expect((await ctx.app.client.rest('GET', `/v1/events/${event.slug}/waitlist`, ctx.key)).body.total).toBe(1);
});
