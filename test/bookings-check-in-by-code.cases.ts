import { randomUUID } from 'node:crypto';
import { bookingInput, CANCEL_BOOKING, createPublishedEvent } from './helpers/bookings';
import { createApiKey, createTenant } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';
import { CREATE_ENDPOINT, WEBHOOK_TEST_ENV, WebhookReceiver } from './helpers/webhook-receiver';
import { CREATE_WITH_CODE, DOORS, scan, transfer } from './helpers/ticket-codes';

/*
 * D29, check-in by ticket code through both doors (Mutation.checkInByCode, POST /v1/check-ins): the
 * rules of D22 (one winner among many gates, ALREADY_CHECKED_IN, BOOKING_NOT_CONFIRMED) and every
 * refusal of its own (TICKET_TRANSFERRED before any other check, EVENT_NOT_FOUND, TICKET_NOT_FOUND for
 * an unknown code or another organization's, WRONG_EVENT naming the ticket's event), input checks,
 * permissions, the booking.checked_in message (without the code), Idempotency-Key. Two server
 * processes scanning one code: test/bookings-processes.test.ts.
 */

const ctx = useTestApp(WEBHOOK_TEST_ENV);
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await new WebhookReceiver().listen();
  ctx.beforeClose(() => receiver.close());
});

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const client = () => ctx.app.client;

async function book(key: string, slug: string, overrides: Record<string, unknown> = {}): Promise<{ id: string; ticketCode: string }> {
  const response = await client().graphql(key, CREATE_WITH_CODE, { input: bookingInput(slug, overrides) });
  expect(response.body.errors).toBeUndefined();
  return response.body.data.createBooking;
}

const checkedInCount = async (key: string, slug: string): Promise<number> =>
  (await client().graphql(key, 'query($slug: String!) { event(slug: $slug) { checkedInCount } }', { slug })).body.data.event.checkedInCount;

describe.each(DOORS)('through %s', (door) => {
  test('a scan checks the booking in (200, the booking), once: scanned again 409 ALREADY_CHECKED_IN with the first time; undone, it scans again', async () => {
    const { key } = await createTenant(ctx.app.orm);
    const event = await createPublishedEvent(client(), key);
    const booking = await book(key, event.slug, { quantity: 2 });
    const checked = await scan(client(), door, key, booking.ticketCode, event.slug);
    expect(checked.status).toBe(200);
    expect(checked.booking).toMatchObject({ id: booking.id, eventSlug: event.slug, status: 'CONFIRMED', checkedInAt: expect.stringMatching(ISO), ticketCode: booking.ticketCode });
    expect(await checkedInCount(key, event.slug)).toBe(1);
    const again = await scan(client(), door, key, booking.ticketCode, event.slug);
    expect({ status: again.status, code: again.error?.code, details: again.error?.details }).toEqual({
      status: 409,
      code: 'ALREADY_CHECKED_IN',
      details: { checkedInAt: checked.booking!.checkedInAt },
    });
    expect((await client().rest('DELETE', `/v1/bookings/${booking.id}/check-in`, key)).body.checkedInAt).toBeNull();
    expect((await scan(client(), door, key, booking.ticketCode, event.slug)).status).toBe(200);
    expect(await checkedInCount(key, event.slug)).toBe(1);
  });

  test('refusals: BOOKING_NOT_CONFIRMED (cancelled), TICKET_NOT_FOUND (unknown, another organization\'s), WRONG_EVENT, EVENT_NOT_FOUND', async () => {
    const { key } = await createTenant(ctx.app.orm);
    const other = await createTenant(ctx.app.orm);
    const event = await createPublishedEvent(client(), key);
    const second = await createPublishedEvent(client(), key);
    const foreign = await createPublishedEvent(client(), other.key);
    const cancelled = await book(key, event.slug);
    await client().graphql(key, CANCEL_BOOKING, { id: cancelled.id });
    const booking = await book(key, event.slug);
    const foreignBooking = await book(other.key, foreign.slug);
    const refused = async (code: string, eventSlug: string) => {
      const outcome = await scan(client(), door, key, code, eventSlug);
      return { status: outcome.status, code: outcome.error?.code, details: outcome.error?.details };
    };

    expect(await refused(cancelled.ticketCode, event.slug)).toEqual({ status: 409, code: 'BOOKING_NOT_CONFIRMED', details: { status: 'CANCELLED' } });
    expect(await refused(`tk_${'x'.repeat(24)}`, event.slug)).toEqual({ status: 404, code: 'TICKET_NOT_FOUND', details: undefined });
    expect(await refused('not-a-code-of-ours', event.slug)).toMatchObject({ status: 404, code: 'TICKET_NOT_FOUND' });
    // Another organization's code at one of this organization's gates, and at the other's event slug.
    expect(await refused(foreignBooking.ticketCode, event.slug)).toMatchObject({ status: 404, code: 'TICKET_NOT_FOUND' });
    expect(await refused(foreignBooking.ticketCode, foreign.slug)).toEqual({ status: 404, code: 'EVENT_NOT_FOUND', details: { slug: foreign.slug } });
    expect(await refused(booking.ticketCode, second.slug)).toEqual({ status: 409, code: 'WRONG_EVENT', details: { eventSlug: event.slug } });
    expect(await refused(booking.ticketCode, 'no-such-event')).toEqual({ status: 404, code: 'EVENT_NOT_FOUND', details: { slug: 'no-such-event' } });
    // Nothing was checked in by any of them, anywhere.
    expect(await checkedInCount(key, event.slug)).toBe(0);
    expect(await checkedInCount(key, second.slug)).toBe(0);
    expect(await checkedInCount(other.key, foreign.slug)).toBe(0);
  });

  test('a code replaced by a transfer answers 409 TICKET_TRANSFERRED (transferredAt) before any other check; the new code scans', async () => {
    const { key } = await createTenant(ctx.app.orm);
    const event = await createPublishedEvent(client(), key);
    const second = await createPublishedEvent(client(), key);
    const booking = await book(key, event.slug);
    const moved = await transfer(client(), 'rest', key, booking.id, { attendeeName: 'Grace Hopper', attendeeEmail: 'grace@example.com' });
    expect(moved.status).toBe(200);
    const [superseded] = await ctx.app.orm.em.fork().getConnection().execute<Array<{ superseded_at: Date }>>(
      'select superseded_at from superseded_ticket_codes where booking_id = ?',
      [booking.id],
    );
    const transferredAt = new Date(superseded.superseded_at).toISOString();
    for (const eventSlug of [event.slug, second.slug, 'no-such-event']) {
      const outcome = await scan(client(), door, key, booking.ticketCode, eventSlug);
      expect({ status: outcome.status, code: outcome.error?.code, details: outcome.error?.details }).toEqual({ status: 409, code: 'TICKET_TRANSFERRED', details: { transferredAt } });
    }
    // Even once the booking is checked in under its new code, the old one says what happened.
    const checked = await scan(client(), door, key, moved.booking!.ticketCode, event.slug);
    expect(checked.booking).toMatchObject({ id: booking.id, attendeeName: 'Grace Hopper' });
    expect((await scan(client(), door, key, booking.ticketCode, event.slug)).error?.code).toBe('TICKET_TRANSFERRED');
  });

  test('bad input: 400 VALIDATION_ERROR naming code or eventSlug (empty, too long, not URL-safe, a malformed slug), the code never repeated', async () => {
    const { key } = await createTenant(ctx.app.orm);
    const event = await createPublishedEvent(client(), key);
    const secretish = `tk_${'a'.repeat(20)}!`;
    for (const [code, eventSlug, field] of [
      ['', event.slug, 'code'],
      ['a'.repeat(129), event.slug, 'code'],
      [secretish, event.slug, 'code'],
      ['tk_abc def', event.slug, 'code'],
      [`tk_${'a'.repeat(24)}`, 'Not A Slug', 'eventSlug'],
    ] as const) {
      const outcome = await scan(client(), door, key, code, eventSlug);
      expect(outcome.status).toBe(400);
      expect(outcome.error?.code).toBe('VALIDATION_ERROR');
      expect((outcome.error?.details as { errors: Array<{ field: string }> }).errors.map((error) => error.field)).toEqual([field]);
      expect(JSON.stringify(outcome)).not.toContain(secretish);
    }
  });

  test('permissions: checkin:write (a key without it: 403 FORBIDDEN, nothing checked in)', async () => {
    const { key, organization } = await createTenant(ctx.app.orm);
    const event = await createPublishedEvent(client(), key);
    const booking = await book(key, event.slug);
    const reader = (await createApiKey(ctx.app.orm, organization.id, { permissions: ['bookings:read', 'bookings:write'] })).key;
    const outcome = await scan(client(), door, reader, booking.ticketCode, event.slug);
    expect({ status: outcome.status, code: outcome.error?.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
    expect(await checkedInCount(key, event.slug)).toBe(0);
  });
});

test('20 gates scanning one code at once, over both doors: exactly one checks it in, 19 answer ALREADY_CHECKED_IN with its time', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(client(), key);
  const booking = await book(key, event.slug);
  const outcomes = await Promise.all(Array.from({ length: 20 }, (_, index) => scan(client(), DOORS[index % 2], key, booking.ticketCode, event.slug)));
  const won = outcomes.filter((outcome) => outcome.status === 200);
  expect(won).toHaveLength(1);
  const { checkedInAt } = won[0].booking!;
  const refused = outcomes.filter((outcome) => outcome.status !== 200).map((outcome) => ({ status: outcome.status, code: outcome.error?.code, details: outcome.error?.details }));
  expect(refused).toEqual(Array(19).fill({ status: 409, code: 'ALREADY_CHECKED_IN', details: { checkedInAt } }));
  const [row] = await ctx.app.orm.em.fork().getConnection().execute('select checked_in_at from bookings where id = ?', [booking.id]);
  expect(new Date(row.checked_in_at).toISOString()).toBe(checkedInAt);
});

test('booking.checked_in is written with the scan (the booking as the API shows it, never its code)', async () => {
  const { key, organization } = await createTenant(ctx.app.orm);
  await client().graphql(key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?org=${organization.id}`, eventTypes: ['booking.checked_in'] } });
  const event = await createPublishedEvent(client(), key);
  const booking = await book(key, event.slug);
  const checked = await scan(client(), 'rest', key, booking.ticketCode, event.slug);
  const [message] = await receiver.waitFor((all) => all.some((one) => one.path.endsWith(organization.id) && one.json.type === 'booking.checked_in'));
  const received = receiver.received.find((one) => one.path.endsWith(organization.id) && one.json.type === 'booking.checked_in')!;
  expect(message).toBeDefined();
  expect(received.json.data).toMatchObject({ id: booking.id, eventSlug: event.slug, status: 'CONFIRMED', checkedInAt: checked.booking!.checkedInAt });
  expect(received.json.data).not.toHaveProperty('ticketCode');
  expect(received.body).not.toContain(booking.ticketCode);
});

test('Idempotency-Key: a retried scan replays the first answer (Idempotent-Replayed), not ALREADY_CHECKED_IN', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(client(), key);
  const booking = await book(key, event.slug);
  const idempotencyKey = randomUUID();
  const send = () =>
    client().request('POST', '/v1/check-ins', { headers: { authorization: `Bearer ${key}`, 'idempotency-key': idempotencyKey }, json: { code: booking.ticketCode, eventSlug: event.slug } });
  const first = await send();
  const retried = await send();
  expect(first.status).toBe(200);
  expect([retried.status, retried.text, retried.headers['idempotent-replayed']]).toEqual([200, first.text, 'true']);
  const missingField = await client().rest('POST', '/v1/check-ins', key, { eventSlug: event.slug });
  expect([missingField.status, missingField.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  const notAnObject = await client().rest('POST', '/v1/check-ins', key, [booking.ticketCode]);
  expect([notAnObject.status, notAnObject.body.error.details.errors[0].field]).toEqual([400, 'body']);
});
