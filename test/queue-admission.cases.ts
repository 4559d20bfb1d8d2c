import { createTenant } from './helpers/factories';
import { createPublishedEvent } from './helpers/bookings';
import { createQueuedEvent, inSeconds, join, openSale, person, poll, until } from './helpers/queue';
import { useTestApp } from './helpers/use-test-app';
import { CREATE_ENDPOINT, verify, WEBHOOK_TEST_ENV, WebhookReceiver } from './helpers/webhook-receiver';

// D30's admission job on a real database, with a second instance passing the same queues: the draw
// (once, early joiners in a random order, later ones behind in join order), admission in order, the
// stock bound in both inventory modes, sold out within 2 s with one queue.sold_out, queue.admitted.
jest.setTimeout(90_000);

const ENV = { ...WEBHOOK_TEST_ENV, QUEUE_INTERVAL_MS: '100' };
const ctx = useTestApp(ENV, { secondInstance: ENV });
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await new WebhookReceiver().listen();
  ctx.beforeClose(() => receiver.close());
});

const sql = (text: string, values: unknown[] = []) => ctx.app.orm.em.fork().getConnection().execute<any[]>(text, values);
const stats = async (key: string, slug: string) => (await ctx.app.client.rest('GET', `/v1/events/${slug}/queue`, key)).body;

/** A tenant whose webhook endpoint (on the receiver, `?org=`) wants the queue's messages. */
async function tenantWithHooks() {
  const tenant = await createTenant(ctx.app.orm);
  const endpoint = await ctx.app.client.graphql(tenant.key, CREATE_ENDPOINT, {
    input: { url: `${receiver.url}?org=${tenant.organization.id}`, eventTypes: ['queue.admitted', 'queue.sold_out'] },
  });
  return { ...tenant, secret: endpoint.body.data.createWebhookEndpoint.secret as string };
}
const messagesOf = (organizationId: string, type: string) => receiver.ofType(type).filter((message) => message.path.endsWith(`org=${organizationId}`));

test('the draw: early joiners get places 1..K in a random order, once (two instances pass the queue); later joiners queue behind in join order', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createQueuedEvent(ctx.app.client, key, { admitPerMinute: 1 });
  const early: string[] = [];
  for (let index = 0; index < 12; index += 1) early.push((await join(ctx.app.client, key, event.slug, `early${index}`)).body.id);
  // Joining many times buys nothing: the same entry.
  for (let index = 0; index < 3; index += 1) expect((await join(ctx.app.client, key, event.slug, 'early0')).body.id).toBe(early[0]);
  await openSale(ctx.app.client, key, event.slug);
  const late = (await join(ctx.app.client, key, event.slug, 'late')).body.id as string;
  await until(() => sql(`select drawn_at from event_queues where event_id = ?`, [event.id]), (rows) => rows[0]?.drawn_at != null);
  const ranks = async () =>
    new Map<string, number>((await sql(`select id, rank from queue_entries where event_id = ?`, [event.id])).map((row: { id: string; rank: number }) => [row.id, row.rank]));
  const drawn = await ranks();
  expect(early.map((id) => drawn.get(id)!).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
  expect(drawn.get(late)).toBe(13);
  // Not the join order (12! orders: this fails once in 479 million draws).
  expect(early.map((id) => drawn.get(id))).not.toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
  await new Promise((resolve) => setTimeout(resolve, 600));
  expect(await ranks()).toEqual(drawn);
  // Positions: the one admitted at once (rank 1) is out; everyone else 1..12 by rank, the late joiner last.
  const polled = await Promise.all([...early, late].map(async (id) => (await poll(ctx.app.client, key, id)).body));
  expect(polled.filter((entry) => entry.status === 'ADMITTED').map((entry) => drawn.get(entry.id))).toEqual([1]);
  for (const entry of polled.filter((candidate) => candidate.status === 'WAITING')) expect(entry.position).toBe(drawn.get(entry.id)! - 1);
  expect(polled.find((entry) => entry.id === late)).toMatchObject({ position: 12, estimatedWaitSeconds: 720 });
});

test('admission in position order at the rate, each admitted once; queue.admitted per admission; stats', async () => {
  const { key, organization, secret } = await tenantWithHooks();
  const event = await createQueuedEvent(ctx.app.client, key, { admitPerMinute: 600, onSaleAt: inSeconds(-1) }, { capacity: null });
  const ids: string[] = [];
  for (let index = 0; index < 8; index += 1) ids.push((await join(ctx.app.client, key, event.slug, `p${index}`)).body.id);
  await until(() => stats(key, event.slug), (figures) => figures.waiting === 0);
  const rows = await sql(`select id, rank, admitted_at from queue_entries where event_id = ? order by rank`, [event.id]);
  expect(rows.map((row: { id: string }) => row.id)).toEqual(ids);
  const times = rows.map((row: { admitted_at: string }) => new Date(row.admitted_at).getTime());
  expect([...times].sort((a, b) => a - b)).toEqual(times);
  // 600 a minute: one per 100 ms at most, so eight take at least 0.7 s.
  expect(times[7] - times[0]).toBeGreaterThanOrEqual(690);
  expect(await stats(key, event.slug)).toEqual({ waiting: 0, admitted: 8, used: 0, admittedLastMinute: 8 });
  const messages = await receiver.waitFor(() => messagesOf(organization.id, 'queue.admitted').length >= 8);
  const admitted = messages.filter((message) => message.path.endsWith(`org=${organization.id}`));
  expect(admitted.map((message) => message.json.data.id).sort()).toEqual([...ids].sort());
  const polled = (await poll(ctx.app.client, key, ids[3])).body;
  expect(verify(secret, admitted.find((message) => message.json.data.id === ids[3])!)).toEqual({ type: 'queue.admitted', timestamp: expect.any(String), data: polled });
});

describe.each([
  ['counts on the event row', 8, 0],
  ['inventory slots (a slotted event, its free seats the sum of its slots)', 600, 592],
])('the stock bound: %s', (_mode, capacity, booked) => {
  test('admissions never promise more than the free seats; sold out: every WAITING entry SOLD_OUT within 2 s, queue.sold_out once; joins refused', async () => {
    const { key, organization } = await tenantWithHooks();
    const event = await createPublishedEvent(ctx.app.client, key, { capacity });
    if (booked > 0) expect((await ctx.app.client.rest('POST', `/v1/events/${event.slug}/bookings`, key, { quantity: booked, ...person('early') })).status).toBe(201);
    await ctx.app.client.rest('PUT', `/v1/events/${event.slug}`, key, { queue: { admitPerMinute: 6_000, maxSeatsPerAdmission: 4, onSaleAt: inSeconds(3600) } });
    const ids: string[] = [];
    for (let index = 0; index < 6; index += 1) ids.push((await join(ctx.app.client, key, event.slug, `s${index}`)).body.id);
    await openSale(ctx.app.client, key, event.slug);
    await until(() => stats(key, event.slug), (figures) => figures.admitted === 2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await stats(key, event.slug)).toMatchObject({ waiting: 4, admitted: 2 });

    const statuses = async () => Promise.all(ids.map(async (id) => (await poll(ctx.app.client, key, id)).body));
    const bookWith = (entry: { id: string; attendeeEmail: string }, quantity: number) =>
      ctx.app.client.rest('POST', `/v1/events/${event.slug}/bookings`, key, { quantity, queueEntryId: entry.id, attendeeEmail: entry.attendeeEmail, attendeeName: 'x' });
    const [first, second] = (await statuses()).filter((entry) => entry.status === 'ADMITTED');
    // 3 seats booked: 5 free, and the other admission may take 4: nobody more.
    expect((await bookWith(first, 3)).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await stats(key, event.slug)).toMatchObject({ waiting: 4, admitted: 1, used: 1 });
    // 4 more: 1 free and no admission outstanding: one more admission, for that last seat.
    expect((await bookWith(second, 4)).status).toBe(201);
    await until(() => stats(key, event.slug), (figures) => figures.admitted === 1 && figures.used === 2);
    expect(await stats(key, event.slug)).toMatchObject({ waiting: 3, admitted: 1, used: 2 });
    const last = (await statuses()).find((entry) => entry.status === 'ADMITTED');
    expect((await bookWith(last, 2)).body.error.code).toBe('SOLD_OUT');
    expect((await bookWith(last, 1)).status).toBe(201);
    const soldAt = Date.now();
    const after = await until(statuses, (entries) => entries.every((entry) => entry.status !== 'WAITING'), 5_000);
    expect(Date.now() - soldAt).toBeLessThan(2_000);
    expect(after.map((entry) => entry.status).sort()).toEqual(['SOLD_OUT', 'SOLD_OUT', 'SOLD_OUT', 'USED', 'USED', 'USED']);
    expect(after.find((entry) => entry.status === 'SOLD_OUT')).toMatchObject({ position: null, pollAfterSeconds: null });
    const joinAfter = await join(ctx.app.client, key, event.slug, 'tooLate');
    expect([joinAfter.status, joinAfter.body.error.code, joinAfter.body.error.details.queue]).toEqual([409, 'SOLD_OUT', 'SOLD_OUT']);
    const soldOut = await receiver.waitFor(() => messagesOf(organization.id, 'queue.sold_out').length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(messagesOf(organization.id, 'queue.sold_out')).toHaveLength(1);
    expect(soldOut.find((message) => message.json.type === 'queue.sold_out' && message.path.endsWith(`org=${organization.id}`))!.json.data).toEqual({
      eventId: event.id,
      eventSlug: event.slug,
      soldOutAt: expect.any(String),
      entries: 3,
    });
    expect(await stats(key, event.slug)).toEqual({ waiting: 0, admitted: 0, used: 3, admittedLastMinute: 3 });
  });
});

test('an admission that lapses gives its promise back: the next one is admitted', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createQueuedEvent(ctx.app.client, key, { admitPerMinute: 6_000, maxSeatsPerAdmission: 4 }, { capacity: 4 });
  const joined = [(await join(ctx.app.client, key, event.slug, 'first')).body.id as string, (await join(ctx.app.client, key, event.slug, 'second')).body.id as string];
  await openSale(ctx.app.client, key, event.slug);
  // Both joined before the sale: the draw decides which is admitted first.
  await until(() => Promise.all(joined.map((id) => poll(ctx.app.client, key, id))), (answers) => answers.some((answer) => answer.body.status === 'ADMITTED'));
  await new Promise((resolve) => setTimeout(resolve, 400));
  const answers = await Promise.all(joined.map((id) => poll(ctx.app.client, key, id)));
  const first = answers.find((answer) => answer.body.status === 'ADMITTED')!.body.id as string;
  const second = joined.find((id) => id !== first)!;
  expect((await poll(ctx.app.client, key, second)).body).toMatchObject({ status: 'WAITING', position: 1 });
  await sql(`update queue_entries set admitted_until = now() - interval '1 second' where id = ?`, [first]);
  const next = await until(() => poll(ctx.app.client, key, second), (answer) => answer.body.status === 'ADMITTED');
  expect(next.body.status).toBe('ADMITTED');
  expect((await poll(ctx.app.client, key, first)).body.status).toBe('EXPIRED');
});
