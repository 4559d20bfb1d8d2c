import { createTenant } from './helpers/factories';
import { CREATE_BOOKING, createPublishedEvent } from './helpers/bookings';
import { createQueuedEvent, inSeconds, join, openSale, person, poll, until } from './helpers/queue';
import { useTestApp } from './helpers/use-test-app';

// D30's gate in front of bookings and holds, through both doors: every refusal, the admission used
// with the booking in the one booking statement (one booking per admission, also at once), both
// inventory modes.
jest.setTimeout(90_000);

const ctx = useTestApp({ QUEUE_INTERVAL_MS: '100' }, { tenant: true });

const sql = (text: string, values: unknown[] = []) => ctx.app.orm.em.fork().getConnection().execute<any[]>(text, values);
const book = (slug: string, body: Record<string, unknown>) => ctx.app.client.rest('POST', `/v1/events/${slug}/bookings`, ctx.key, { quantity: 1, ...body });
const bookGraphql = (slug: string, input: Record<string, unknown>) =>
  ctx.app.client.graphql(ctx.key, CREATE_BOOKING, { input: { eventSlug: slug, quantity: 1, ...input } });

/** An entry of `name` in the event's queue, once admitted. */
async function admitted(slug: string, name: string): Promise<string> {
  const entry = (await join(ctx.app.client, ctx.key, slug, name)).body;
  const polled = await until(() => poll(ctx.app.client, ctx.key, entry.id), (answer) => answer.body.status === 'ADMITTED');
  expect(polled.body.status).toBe('ADMITTED');
  return entry.id as string;
}

/** A queued event on sale now, `queue` and `event` over the defaults. */
async function onSale(queue: Record<string, unknown> = {}, event: Record<string, unknown> = {}) {
  const created = await createQueuedEvent(ctx.app.client, ctx.key, queue, event);
  await openSale(ctx.app.client, ctx.key, created.slug);
  return created;
}

test('before onSaleAt: NOT_ON_SALE (details.onSaleAt), with or without an entry, in both doors', async () => {
  const onSaleAt = inSeconds(3600);
  const event = await createQueuedEvent(ctx.app.client, ctx.key, { onSaleAt });
  const entry = (await join(ctx.app.client, ctx.key, event.slug, 'ada')).body;
  for (const body of [person('ada'), { ...person('ada'), queueEntryId: entry.id }]) {
    const refused = await book(event.slug, body);
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([409, 'NOT_ON_SALE', { onSaleAt: new Date(onSaleAt).toISOString() }]);
  }
  const graphql = await bookGraphql(event.slug, person('ada'));
  expect(graphql.body.errors[0].extensions).toMatchObject({ code: 'NOT_ON_SALE', details: { onSaleAt: new Date(onSaleAt).toISOString() } });
  expect((await book(event.slug, { ...person('ada'), hold: true })).body.error.code).toBe('NOT_ON_SALE');
});

test('on sale: QUEUE_REQUIRED (403) without an entry; more seats than an admission books: 400 on quantity', async () => {
  const event = await onSale({ maxSeatsPerAdmission: 2 });
  const required = await book(event.slug, person('ada'));
  expect([required.status, required.body.error.code, required.body.error.details]).toEqual([403, 'QUEUE_REQUIRED', { eventSlug: event.slug }]);
  expect((await bookGraphql(event.slug, person('ada'))).body.errors[0].extensions.code).toBe('QUEUE_REQUIRED');
  const id = await admitted(event.slug, 'ada');
  const many = await book(event.slug, { ...person('ada'), quantity: 3, queueEntryId: id });
  expect([many.status, many.body.error.code, many.body.error.details.errors[0].field]).toEqual([400, 'VALIDATION_ERROR', 'quantity']);
  expect((await poll(ctx.app.client, ctx.key, id)).body.status).toBe('ADMITTED');
  expect((await book(event.slug, { ...person('ada'), quantity: 2, queueEntryId: id })).status).toBe(201);
});

test('unknown or foreign entry: QUEUE_ENTRY_NOT_FOUND; another attendee or event: ADMISSION_MISMATCH; malformed: 400', async () => {
  const event = await onSale();
  const other = await onSale();
  const id = await admitted(event.slug, 'ada');
  const otherId = await admitted(other.slug, 'ada');
  expect((await book(event.slug, { ...person('ada'), queueEntryId: 'qe_doesnotexist00000000' })).body.error).toMatchObject({ code: 'QUEUE_ENTRY_NOT_FOUND' });
  const email = await book(event.slug, { ...person('mallory'), queueEntryId: id });
  expect([email.status, email.body.error.code, email.body.error.details]).toEqual([409, 'ADMISSION_MISMATCH', { id, mismatched: 'attendeeEmail' }]);
  const wrongEvent = await book(event.slug, { ...person('ada'), queueEntryId: otherId });
  expect(wrongEvent.body.error).toMatchObject({ code: 'ADMISSION_MISMATCH', details: { mismatched: 'eventSlug' } });
  expect((await book(event.slug, { ...person('ada'), queueEntryId: 'bk_notanentry' })).status).toBe(400);
  // Another organization's admission is no admission here; its own organization cannot see this event.
  const tenant = await createTenant(ctx.app.orm);
  const theirs = await createQueuedEvent(ctx.app.client, tenant.key, { onSaleAt: inSeconds(3600) });
  const theirEntry = (await join(ctx.app.client, tenant.key, theirs.slug, 'ada')).body.id;
  expect((await book(event.slug, { ...person('ada'), queueEntryId: theirEntry })).body.error.code).toBe('QUEUE_ENTRY_NOT_FOUND');
  expect((await poll(ctx.app.client, ctx.key, id)).body.status).toBe('ADMITTED');
});

test('not admitted yet: NOT_ADMITTED with its position; used: ADMISSION_USED; lapsed: ADMISSION_EXPIRED', async () => {
  const event = await onSale({ admitPerMinute: 1 });
  const first = await admitted(event.slug, 'first');
  const second = (await join(ctx.app.client, ctx.key, event.slug, 'second')).body.id as string;
  const third = (await join(ctx.app.client, ctx.key, event.slug, 'third')).body.id as string;
  const waiting = await book(event.slug, { ...person('third'), queueEntryId: third });
  expect([waiting.status, waiting.body.error.code, waiting.body.error.details]).toEqual([409, 'NOT_ADMITTED', { id: third, status: 'WAITING', position: 2 }]);
  expect((await bookGraphql(event.slug, { ...person('second'), queueEntryId: second })).body.errors[0].extensions).toMatchObject({
    code: 'NOT_ADMITTED',
    details: { position: 1 },
  });

  const booked = await book(event.slug, { ...person('first'), queueEntryId: first });
  expect(booked.status).toBe(201);
  const used = await book(event.slug, { ...person('first'), queueEntryId: first });
  expect([used.status, used.body.error.code, used.body.error.details]).toEqual([409, 'ADMISSION_USED', { id: first, bookingId: booked.body.id }]);

  // Time passing for an admission: its admittedUntil moved into the past.
  const late = await onSale();
  const lapsing = await admitted(late.slug, 'late');
  const [{ until: admittedUntil }] = await sql(`update queue_entries set admitted_until = now() - interval '1 second' where id = ? returning to_json(admitted_until) #>> '{}' as until`, [lapsing]);
  const expired = await book(late.slug, { ...person('late'), queueEntryId: lapsing });
  expect([expired.status, expired.body.error.code, expired.body.error.details]).toEqual([409, 'ADMISSION_EXPIRED', { id: lapsing, admittedUntil: new Date(admittedUntil).toISOString() }]);
  expect((await poll(ctx.app.client, ctx.key, lapsing)).body.status).toBe('EXPIRED');
  const left = await ctx.app.client.rest('DELETE', `/v1/queue/${second}`, ctx.key);
  expect((await book(event.slug, { ...person('second'), queueEntryId: second })).body.error).toMatchObject({ code: 'NOT_ADMITTED', details: { status: 'LEFT', position: null } });
  expect(left.status).toBe(200);
});

test('a hold with an admission: HELD, the entry USED with its booking; the queue does not gate the waiting list', async () => {
  const event = await onSale();
  const id = await admitted(event.slug, 'ada');
  const held = await book(event.slug, { ...person('ada'), queueEntryId: id, hold: true, quantity: 2 });
  expect([held.status, held.body.status]).toEqual([201, 'HELD']);
  expect((await poll(ctx.app.client, ctx.key, id)).body).toMatchObject({ status: 'USED', bookingId: held.body.id, usedAt: expect.any(String) });
  expect((await ctx.app.client.rest('POST', `/v1/bookings/${held.body.id}/confirm`, ctx.key)).body.status).toBe('CONFIRMED');
  // An event without a queue books as ever; an entry named there changes nothing.
  const plain = await createPublishedEvent(ctx.app.client, ctx.key);
  expect((await book(plain.slug, { ...person('ada'), queueEntryId: id })).status).toBe(201);
});

describe.each([
  ['on the event row', 50],
  ['in inventory slots', 600],
])('one admission, one booking: counts kept %s', (_where, capacity) => {
  test('eight requests presenting one admission at once: one booking, seven ADMISSION_USED', async () => {
    const event = await onSale({}, { capacity });
    const id = await admitted(event.slug, 'ada');
    const answers = await Promise.all(Array.from({ length: 8 }, (_, index) => book(event.slug, { ...person('ada'), queueEntryId: id, hold: index % 2 === 0 })));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status !== 201).map((answer) => answer.body.error.code)).toEqual(new Array(7).fill('ADMISSION_USED'));
    const [{ count }] = await sql(`select count(*)::int as count from bookings where event_id = ?`, [event.id]);
    expect(count).toBe(1);
    const read = await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, ctx.key);
    expect(read.body.registrationCount + read.body.heldCount).toBe(1);
  });
});
