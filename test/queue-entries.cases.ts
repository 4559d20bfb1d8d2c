import { randomUUID } from 'node:crypto';
import { createApiKey, createTenant } from './helpers/factories';
import { createQueuedEvent, inSeconds, join, JOIN_QUEUE, LEAVE_QUEUE, person, poll, QUEUE_ENTRY, QUEUE_STATS } from './helpers/queue';
import { createPublishedEvent } from './helpers/bookings';
import { useTestApp } from './helpers/use-test-app';

// D30's entries through both doors, admission off (QUEUE_INTERVAL_MS=0: positions hold still): join
// (201 new, 200 the attendee's), poll, leave, the figures, refusals, tenancy, Idempotency-Key.
jest.setTimeout(60_000);

const ctx = useTestApp({ QUEUE_INTERVAL_MS: '0' }, { tenant: true });

const positions = async (ids: string[]) => Promise.all(ids.map(async (id) => (await poll(ctx.app.client, ctx.key, id)).body.position as number | null));

test('join: 201 with Location, again (any case of the email) 200 with the same entry; GraphQL says created', async () => {
  const event = await createQueuedEvent(ctx.app.client, ctx.key);
  const first = await join(ctx.app.client, ctx.key, event.slug, 'ada');
  expect(first.status).toBe(201);
  expect(first.headers.location).toBe(`/v1/queue/${first.body.id}`);
  expect(first.body).toEqual({
    id: expect.stringMatching(/^qe_[A-Za-z0-9]{20}$/),
    eventId: event.id,
    eventSlug: event.slug,
    attendeeEmail: 'ada@example.com',
    attendeeName: 'ada',
    status: 'WAITING',
    position: null,
    estimatedWaitSeconds: null,
    pollAfterSeconds: 30,
    joinedAt: expect.stringMatching(/Z$/),
    admittedAt: null,
    admittedUntil: null,
    usedAt: null,
    bookingId: null,
  });
  const again = await ctx.app.client.rest('POST', `/v1/events/${event.slug}/queue`, ctx.key, { attendeeEmail: 'ADA@Example.com' });
  expect([again.status, again.headers.location, again.body]).toEqual([200, undefined, first.body]);
  const graphql = await ctx.app.client.graphql(ctx.key, JOIN_QUEUE, { eventSlug: event.slug, input: person('ada') });
  expect(graphql.body.data.joinQueue).toEqual({ ...first.body, created: false });
  const grace = await ctx.app.client.graphql(ctx.key, JOIN_QUEUE, { eventSlug: event.slug, input: person('grace') });
  expect(grace.body.data.joinQueue).toMatchObject({ status: 'WAITING', created: true });
  expect((await ctx.app.client.rest('GET', `/v1/events/${event.slug}/queue`, ctx.key)).body).toEqual({ waiting: 2, admitted: 0, used: 0, admittedLastMinute: 0 });
});

test('positions 1..W in join order after onSaleAt, moving up when someone leaves from the middle; leaving and joining again goes to the back', async () => {
  const event = await createQueuedEvent(ctx.app.client, ctx.key, { onSaleAt: inSeconds(-60), admitPerMinute: 60 });
  const ids: string[] = [];
  for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) ids.push((await join(ctx.app.client, ctx.key, event.slug, name)).body.id);
  expect(await positions(ids)).toEqual([1, 2, 3, 4, 5, 6]);
  const third = await poll(ctx.app.client, ctx.key, ids[2]);
  expect(third.body).toMatchObject({ position: 3, estimatedWaitSeconds: 3, pollAfterSeconds: 1 });

  const left = await ctx.app.client.rest('DELETE', `/v1/queue/${ids[2]}`, ctx.key);
  expect([left.status, left.body.status, left.body.position]).toEqual([200, 'LEFT', null]);
  expect(await positions(ids)).toEqual([1, 2, null, 3, 4, 5]);
  const leftAgain = await ctx.app.client.graphql(ctx.key, LEAVE_QUEUE, { id: ids[2] });
  expect(leftAgain.body.data.leaveQueue).toMatchObject({ status: 'LEFT' });
  await ctx.app.client.rest('DELETE', `/v1/queue/${ids[0]}`, ctx.key);
  await ctx.app.client.rest('DELETE', `/v1/queue/${ids[5]}`, ctx.key);
  expect(await positions(ids)).toEqual([null, 1, null, 2, 3, null]);

  const back = await join(ctx.app.client, ctx.key, event.slug, 'c');
  expect([back.status, back.body.id === ids[2], back.body.position]).toEqual([201, false, 4]);
  expect((await ctx.app.client.graphql(ctx.key, QUEUE_STATS, { eventSlug: event.slug })).body.data.queueStats).toEqual({ waiting: 4, admitted: 0, used: 0, admittedLastMinute: 0 });
  const graphql = await ctx.app.client.graphql(ctx.key, QUEUE_ENTRY, { id: back.body.id });
  expect(graphql.body.data.queueEntry).toEqual((await poll(ctx.app.client, ctx.key, back.body.id)).body);
});

test('refusals: QUEUE_NOT_ENABLED, QUEUE_NOT_OPEN (opensAt), EVENT_NOT_FOUND, EVENT_NOT_PUBLISHED, bad input, unknown entries', async () => {
  const plain = await createPublishedEvent(ctx.app.client, ctx.key);
  const none = await join(ctx.app.client, ctx.key, plain.slug, 'ada');
  expect([none.status, none.body.error.code, none.body.error.details]).toEqual([409, 'QUEUE_NOT_ENABLED', { eventSlug: plain.slug }]);
  const opensAt = inSeconds(600);
  const later = await createQueuedEvent(ctx.app.client, ctx.key, { opensAt });
  const early = await join(ctx.app.client, ctx.key, later.slug, 'ada');
  expect([early.status, early.body.error.code, early.body.error.details]).toEqual([409, 'QUEUE_NOT_OPEN', { opensAt: new Date(opensAt).toISOString() }]);
  const off = await createQueuedEvent(ctx.app.client, ctx.key, { enabled: false });
  expect((await join(ctx.app.client, ctx.key, off.slug, 'ada')).body.error.code).toBe('QUEUE_NOT_ENABLED');
  const cancelled = await createQueuedEvent(ctx.app.client, ctx.key);
  await ctx.app.client.rest('PUT', `/v1/events/${cancelled.slug}`, ctx.key, { status: 'CANCELLED' });
  expect((await join(ctx.app.client, ctx.key, cancelled.slug, 'ada')).body.error.code).toBe('EVENT_NOT_PUBLISHED');
  expect((await join(ctx.app.client, ctx.key, 'no-such-event', 'ada')).body.error).toMatchObject({ code: 'EVENT_NOT_FOUND', details: { slug: 'no-such-event' } });
  const graphql = await ctx.app.client.graphql(ctx.key, JOIN_QUEUE, { eventSlug: later.slug, input: person('grace') });
  expect(graphql.body.errors[0].extensions).toMatchObject({ code: 'QUEUE_NOT_OPEN', details: { opensAt: new Date(opensAt).toISOString() } });

  const open = await createQueuedEvent(ctx.app.client, ctx.key);
  const invalid = await ctx.app.client.rest('POST', `/v1/events/${open.slug}/queue`, ctx.key, { attendeeEmail: 'nope', attendeeName: ' ' });
  expect([invalid.status, invalid.body.error.details.errors.map((error: { field: string }) => error.field).sort()]).toEqual([400, ['attendeeEmail', 'attendeeName']]);
  expect((await ctx.app.client.rest('GET', '/v1/queue/qe_doesnotexist00000000', ctx.key)).body.error).toMatchObject({ code: 'QUEUE_ENTRY_NOT_FOUND' });
  expect((await ctx.app.client.rest('DELETE', '/v1/queue/qe_doesnotexist00000000', ctx.key)).status).toBe(404);
  expect((await ctx.app.client.rest('GET', '/v1/queue/bk_notaqueueentry', ctx.key)).status).toBe(400);
  expect((await ctx.app.client.rest('GET', '/v1/events/no-such-event/queue', ctx.key)).body.error.code).toBe('EVENT_NOT_FOUND');
});

test("tenancy: another organization's entry and event answer as missing ones; permissions", async () => {
  const event = await createQueuedEvent(ctx.app.client, ctx.key);
  const entry = (await join(ctx.app.client, ctx.key, event.slug, 'ada')).body;
  const other = await createTenant(ctx.app.orm);
  expect((await ctx.app.client.rest('GET', `/v1/queue/${entry.id}`, other.key)).body.error).toMatchObject({ code: 'QUEUE_ENTRY_NOT_FOUND', details: { id: entry.id } });
  expect((await ctx.app.client.rest('DELETE', `/v1/queue/${entry.id}`, other.key)).status).toBe(404);
  expect((await ctx.app.client.graphql(other.key, QUEUE_ENTRY, { id: entry.id })).body.errors[0].extensions.code).toBe('QUEUE_ENTRY_NOT_FOUND');
  expect((await join(ctx.app.client, other.key, event.slug, 'eve')).body.error.code).toBe('EVENT_NOT_FOUND');
  expect((await ctx.app.client.rest('GET', `/v1/events/${event.slug}/queue`, other.key)).status).toBe(404);
  expect((await poll(ctx.app.client, ctx.key, entry.id)).body.status).toBe('WAITING');

  const reader = await createApiKey(ctx.app.orm, ctx.organizationId, { permissions: ['events:read', 'bookings:read'] });
  const forbidden = await join(ctx.app.client, reader.key, event.slug, 'reader');
  expect([forbidden.status, forbidden.body.error.code, forbidden.body.error.details.requiredPermission]).toEqual([403, 'FORBIDDEN', 'bookings:write']);
  expect((await poll(ctx.app.client, reader.key, entry.id)).status).toBe(200);
  const eventsOnly = await createApiKey(ctx.app.orm, ctx.organizationId, { permissions: ['events:read'] });
  expect((await poll(ctx.app.client, eventsOnly.key, entry.id)).status).toBe(403);
});

test('Idempotency-Key: a join retried replays its 201 and joins once; a leave retried replays its answer', async () => {
  const event = await createQueuedEvent(ctx.app.client, ctx.key);
  const idempotencyKey = randomUUID();
  const send = (method: string, path: string, json?: unknown, key = idempotencyKey) =>
    ctx.app.client.request(method, path, { headers: { authorization: `Bearer ${ctx.key}`, 'idempotency-key': key }, ...(json === undefined ? {} : { json }) });
  const first = await send('POST', `/v1/events/${event.slug}/queue`, person('retry'));
  const retry = await send('POST', `/v1/events/${event.slug}/queue`, person('retry'));
  expect(first.status).toBe(201);
  expect([retry.status, retry.headers['idempotent-replayed'], retry.text, retry.headers.location]).toEqual([201, 'true', first.text, first.headers.location]);
  expect((await ctx.app.client.rest('GET', `/v1/events/${event.slug}/queue`, ctx.key)).body.waiting).toBe(1);
  const leaveKey = randomUUID();
  const left = await send('DELETE', `/v1/queue/${first.body.id}`, undefined, leaveKey);
  const leftAgain = await send('DELETE', `/v1/queue/${first.body.id}`, undefined, leaveKey);
  expect([left.status, leftAgain.status, leftAgain.headers['idempotent-replayed'], leftAgain.text]).toEqual([200, 200, 'true', left.text]);
  expect((await ctx.app.client.rest('GET', `/v1/events/${event.slug}/queue`, ctx.key)).body.waiting).toBe(0);
});
