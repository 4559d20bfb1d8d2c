import { bookingInput, CANCEL_BOOKING, CREATE_BOOKING, createPublishedEvent } from './helpers/bookings';
import { createTenant, eventInput } from './helpers/factories';
import { startTestApp } from './helpers/test-app';
import { useTestApp } from './helpers/use-test-app';
import { CREATE_ENDPOINT, verify, WEBHOOK_TEST_ENV, WebhookReceiver, type ReceivedMessage } from './helpers/webhook-receiver';
import { enqueueWebhook } from '../src/platform/outbox/outbox';

const ctx = useTestApp(WEBHOOK_TEST_ENV);
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await new WebhookReceiver().listen();
  ctx.beforeClose(() => receiver.close());
});

const FULL_EVENT = `id slug title description startDate endDate timezone venue venueAddress coverImage status capacity
  registrationCount heldCount checkedInCount organizationId createdAt updatedAt series { id slug } ticketTypes { id name price currency quantity sold held }
  queue { enabled opensAt onSaleAt admitPerMinute admissionMinutes maxSeatsPerAdmission }`;

/** A tenant with an endpoint (every type) on the receiver, registered through GraphQL. */
async function tenantWithEndpoint(eventTypes: string[] = []) {
  const tenant = await createTenant(ctx.app.orm);
  const created = await ctx.app.client.graphql(tenant.key, CREATE_ENDPOINT, {
    input: { url: `${receiver.url}?org=${tenant.organization.id}`, eventTypes },
  });
  expect(created.body.errors).toBeUndefined();
  const { secret, endpoint } = created.body.data.createWebhookEndpoint;
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
  expect(endpoint).toMatchObject({ id: expect.stringMatching(/^whe_/), enabled: true, eventTypes });
  return { ...tenant, secret, endpoint };
}

/** What this organization's endpoint received (its URL carries the organization). */
function byOrg(organizationId: string): ReceivedMessage[] {
  return receiver.received.filter((message) => message.path.endsWith(`?org=${organizationId}`));
}

async function waitForTypes(organizationId: string, types: string[]): Promise<ReceivedMessage[]> {
  await receiver.waitFor(() => types.every((type) => byOrg(organizationId).some((message) => message.json.type === type)));
  return byOrg(organizationId);
}

function expectSignedOnce(secret: string, messages: ReceivedMessage[], type: string): ReceivedMessage {
  const ofType = messages.filter((message) => message.json.type === type);
  expect(ofType).toHaveLength(1);
  const [message] = ofType;
  expect(verify(secret, message)).toEqual(message.json);
  expect(message.headers['content-type']).toBe('application/json');
  expect(message.id).toMatch(/^msg_[A-Za-z0-9]{20}$/);
  expect(Math.abs(Number(message.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
  expect(message.json.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  expect(Object.keys(message.json).sort()).toEqual(['data', 'timestamp', 'type']);
  return message;
}

test('REST door: every event and booking change arrives once, signed, with the D18 payload', async () => {
  const { key, secret, organization } = await tenantWithEndpoint();
  const created = await ctx.app.client.rest('POST', '/v1/events', key, eventInput({ capacity: 10, ticketTypes: [{ name: 'GA', price: 10, currency: 'EUR', quantity: 5 }] }));
  expect(created.status).toBe(201);
  const slug = created.body.slug;
  const afterCreate = (await ctx.app.client.rest('GET', `/v1/events/${slug}`, key)).body;

  const updated = await ctx.app.client.rest('PUT', `/v1/events/${slug}`, key, { title: 'Renamed' });
  const afterUpdate = (await ctx.app.client.rest('GET', `/v1/events/${slug}`, key)).body;
  // The same values again change nothing, and send nothing.
  expect((await ctx.app.client.rest('PUT', `/v1/events/${slug}`, key, { title: 'Renamed' })).status).toBe(200);
  const published = await ctx.app.client.rest('PUT', `/v1/events/${slug}`, key, { status: 'PUBLISHED' });
  const afterPublish = (await ctx.app.client.rest('GET', `/v1/events/${slug}`, key)).body;
  expect([updated.status, published.status]).toEqual([200, 200]);

  const booking = (await ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(slug, { quantity: 2, ticketTypeId: afterCreate.ticketTypes[0].id }) })).body.data.createBooking;
  const cancelledBooking = (await ctx.app.client.graphql(key, CANCEL_BOOKING, { id: booking.id })).body.data.cancelBooking;
  const cancelled = await ctx.app.client.rest('PUT', `/v1/events/${slug}`, key, { status: 'CANCELLED' });
  const afterCancel = (await ctx.app.client.rest('GET', `/v1/events/${slug}`, key)).body;
  expect((await ctx.app.client.rest('DELETE', `/v1/events/${slug}`, key)).status).toBe(204);
  expect(cancelled.status).toBe(200);

  const types = ['event.created', 'event.updated', 'event.published', 'booking.created', 'booking.cancelled', 'event.cancelled', 'event.deleted'];
  const messages = await waitForTypes(organization.id, types);
  expect(expectSignedOnce(secret, messages, 'event.created').json.data).toEqual(afterCreate);
  expect(expectSignedOnce(secret, messages, 'event.updated').json.data).toEqual(afterUpdate);
  expect(expectSignedOnce(secret, messages, 'event.published').json.data).toEqual(afterPublish);
  expect(expectSignedOnce(secret, messages, 'event.cancelled').json.data).toEqual(afterCancel);
  expect(expectSignedOnce(secret, messages, 'event.deleted').json.data).toEqual({ id: created.body.id, slug });
  // The booking as the mutation answered it (never checked in here: BOOKING_FIELDS leaves checkedInAt out).
  const bookingFields = ({ ticketType, ...rest }: Record<string, any>) => ({ ...rest, ticketTypeId: ticketType?.id ?? null, checkedInAt: null });
  expect(expectSignedOnce(secret, messages, 'booking.created').json.data).toEqual(bookingFields(booking));
  expect(expectSignedOnce(secret, messages, 'booking.cancelled').json.data).toEqual(bookingFields(cancelledBooking));
  expect(messages).toHaveLength(types.length);
});

test('GraphQL door: createEvent, updateEvent and deleteEvent send the same messages as REST', async () => {
  const { key, secret, organization } = await tenantWithEndpoint();
  const input = eventInput();
  const created = await ctx.app.client.graphql(key, `mutation($input: CreateEventInput!) { createEvent(input: $input) { ${FULL_EVENT} } }`, { input });
  const event = created.body.data.createEvent;
  const update = `mutation($slug: String!, $input: UpdateEventInput!) { updateEvent(slug: $slug, input: $input) { ${FULL_EVENT} } }`;
  const updated = (await ctx.app.client.graphql(key, update, { slug: event.slug, input: { venue: 'Main hall' } })).body.data.updateEvent;
  const published = (await ctx.app.client.graphql(key, update, { slug: event.slug, input: { status: 'PUBLISHED' } })).body.data.updateEvent;
  const cancelled = (await ctx.app.client.graphql(key, update, { slug: event.slug, input: { status: 'CANCELLED' } })).body.data.updateEvent;
  const deleted = await ctx.app.client.graphql(key, 'mutation($slug: String!) { deleteEvent(slug: $slug) { id slug } }', { slug: event.slug });
  expect(deleted.body.data.deleteEvent).toEqual({ id: event.id, slug: event.slug });

  const messages = await waitForTypes(organization.id, ['event.created', 'event.updated', 'event.published', 'event.cancelled', 'event.deleted']);
  // The GraphQL mutation selected every REST field, so its answer is what GET /v1/events/{slug} returned then.
  expect(expectSignedOnce(secret, messages, 'event.created').json.data).toEqual(event);
  expect(expectSignedOnce(secret, messages, 'event.updated').json.data).toEqual(updated);
  expect(expectSignedOnce(secret, messages, 'event.published').json.data).toEqual(published);
  expect(expectSignedOnce(secret, messages, 'event.cancelled').json.data).toEqual(cancelled);
  expect(expectSignedOnce(secret, messages, 'event.deleted').json.data).toEqual({ id: event.id, slug: event.slug });
  expect(messages).toHaveLength(5);
});

test('an endpoint gets only the types it asked for', async () => {
  const { key, organization } = await tenantWithEndpoint(['event.published']);
  const created = await ctx.app.client.rest('POST', '/v1/events', key, eventInput());
  await ctx.app.client.rest('PUT', `/v1/events/${created.body.slug}`, key, { title: 'Changed' });
  await ctx.app.client.rest('PUT', `/v1/events/${created.body.slug}`, key, { status: 'PUBLISHED' });
  const messages = await waitForTypes(organization.id, ['event.published']);
  const ids = await ctx.app.orm.em.fork().execute<Array<{ type: string }>>(
    `select m.type from webhook_messages m where m.organization_id = ? order by m.created_at`,
    [organization.id],
  );
  expect(ids.map((row: { type: string }) => row.type)).toEqual(['event.published']);
  expect(messages.map((message) => message.json.type)).toEqual(['event.published']);
});

test('a change that rolls back writes no message and sends nothing', async () => {
  const { key, organization } = await tenantWithEndpoint();
  const event = (await ctx.app.client.rest('POST', '/v1/events', key, eventInput())).body;
  await waitForTypes(organization.id, ['event.created']);

  // The outbox call itself inside a transaction that then fails.
  await expect(
    ctx.app.orm.em.fork().transactional(async (em) => {
      await enqueueWebhook(em, organization.id, 'event.deleted', { id: event.id, slug: event.slug });
      throw new Error('the change failed after the outbox call');
    }),
  ).rejects.toThrow('the change failed');
  // Refused changes through the API: a bad update and a delete refused for a booking.
  expect((await ctx.app.client.rest('PUT', `/v1/events/${event.slug}`, key, { status: 'COMPLETED' })).status).toBe(400);
  await ctx.app.client.rest('PUT', `/v1/events/${event.slug}`, key, { status: 'PUBLISHED' });
  await ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(event.slug) });
  expect((await ctx.app.client.rest('DELETE', `/v1/events/${event.slug}`, key)).status).toBe(409);
  // A marker change after them: once it has arrived, anything queued before it has been delivered too.
  await ctx.app.client.rest('PUT', `/v1/events/${event.slug}`, key, { title: 'Marker' });
  const messages = await receiver.waitFor(() => byOrg(organization.id).some((message) => message.json.data.title === 'Marker'));
  await receiver.waitFor(() => byOrg(organization.id).filter((message) => message.json.type === 'booking.created').length === 1);
  expect(byOrg(organization.id).map((message) => message.json.type).sort()).toEqual(
    ['booking.created', 'event.created', 'event.published', 'event.updated'].sort(),
  );
  expect(messages.filter((message) => message.json.type === 'event.deleted' && message.json.data.id === event.id)).toHaveLength(0);
  const rows = await ctx.app.orm.em.fork().execute(`select type from webhook_messages where organization_id = ? and type = 'event.deleted'`, [organization.id]);
  expect(rows).toHaveLength(0);
});

test('an event that becomes COMPLETED by time sends nothing', async () => {
  const { key, organization } = await tenantWithEndpoint();
  const event = (await ctx.app.client.rest('POST', '/v1/events', key, eventInput())).body;
  await ctx.app.client.rest('PUT', `/v1/events/${event.slug}`, key, { status: 'PUBLISHED' });
  await waitForTypes(organization.id, ['event.published']);
  // Its end passes (moved into the past in the database, as time would).
  await ctx.app.orm.em.fork().execute(`update events set start_date = now() - interval '2 hours', end_date = now() - interval '1 hour' where id = ?`, [event.id]);
  expect((await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, key)).body.status).toBe('COMPLETED');
  const rows = await ctx.app.orm.em.fork().execute<Array<{ type: string }>>(`select type from webhook_messages where organization_id = ?`, [organization.id]);
  expect(rows.map((row: { type: string }) => row.type).sort()).toEqual(['event.created', 'event.published']);
});

// The worker's claim and record, and the wake-up's NOTIFY, run on the pool of one-statement writes
// (DB_WRITE_POOL_MAX, the app above); without that pool they run as prepared statements on the ORM's.
test('DB_WRITE_POOL_MAX=0: a booking is delivered, and its attempt recorded, through the ORM pool', async () => {
  const ormOnly = await startTestApp({ ...WEBHOOK_TEST_ENV, DB_WRITE_POOL_MAX: '0' });
  try {
    const { key, organization } = await createTenant(ormOnly.orm);
    const endpoint = await ormOnly.client.graphql(key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?org=${organization.id}`, eventTypes: ['booking.created'] } });
    expect(endpoint.body.errors).toBeUndefined();
    const { secret } = endpoint.body.data.createWebhookEndpoint;
    const event = await createPublishedEvent(ormOnly.client, key, { capacity: 10 });
    const booked = await ormOnly.client.graphql(key, CREATE_BOOKING, { input: bookingInput(event.slug) });
    expect(booked.body.errors).toBeUndefined();
    const messages = await waitForTypes(organization.id, ['booking.created']);
    expect(expectSignedOnce(secret, messages, 'booking.created').json.data.id).toBe(booked.body.data.createBooking.id);
    const deliveries = async () =>
      ormOnly.orm.em.fork().execute<Array<{ status: string; attempts: number }>>(
        `select d.status, (select count(*) from webhook_attempts a where a.delivery_id = d.id)::int as attempts
           from webhook_deliveries d where d.organization_id = ?`,
        [organization.id],
      );
    // The record follows the receiver's answer.
    for (let tries = 0; tries < 100 && (await deliveries())[0]?.status !== 'SUCCEEDED'; tries += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await deliveries()).toEqual([{ status: 'SUCCEEDED', attempts: 1 }]);
  } finally {
    await ormOnly.close();
  }
});

test('a % in the data arrives as it was sent, in a message whose statement fills holes and in one that fills none', async () => {
  const { key, organization } = await tenantWithEndpoint(['event.created', 'booking.created']);
  // event.created has no value the statement fills in; booking.created has its event's id.
  const created = await ctx.app.client.rest('POST', '/v1/events', key, eventInput({ title: '100% fun, 50%% off %s', capacity: 5 }));
  expect(created.status).toBe(201);
  await ctx.app.client.rest('PUT', `/v1/events/${created.body.slug}`, key, { status: 'PUBLISHED' });
  const booked = await ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(created.body.slug, { attendeeName: 'Ada 100% %s' }) });
  expect(booked.body.errors).toBeUndefined();
  const messages = await waitForTypes(organization.id, ['event.created', 'booking.created']);
  expect(messages.find((message) => message.json.type === 'event.created')?.json.data.title).toBe('100% fun, 50%% off %s');
  expect(messages.find((message) => message.json.type === 'booking.created')?.json.data).toMatchObject({
    attendeeName: 'Ada 100% %s',
    eventId: created.body.id,
  });

  // The other doors: the event made through GraphQL, the booking through REST.
  const input = eventInput({ title: 'Tickets 20% %% %s', capacity: 5 });
  const made = await ctx.app.client.graphql(key, `mutation($input: CreateEventInput!) { createEvent(input: $input) { id slug } }`, { input });
  expect(made.body.errors).toBeUndefined();
  const { id: eventId, slug } = made.body.data.createEvent;
  await ctx.app.client.graphql(key, `mutation($slug: String!) { updateEvent(slug: $slug, input: { status: PUBLISHED }) { status } }`, { slug });
  const overRest = await ctx.app.client.rest('POST', `/v1/events/${slug}/bookings`, key, { quantity: 1, attendeeEmail: 'grace@example.com', attendeeName: 'Grace 5% %s' });
  expect(overRest.status).toBe(201);
  await receiver.waitFor(() => byOrg(organization.id).filter((message) => message.json.type === 'booking.created').length >= 2);
  const all = byOrg(organization.id);
  expect(all.find((message) => message.json.type === 'event.created' && message.json.data.id === eventId)?.json.data.title).toBe('Tickets 20% %% %s');
  expect(all.find((message) => message.json.type === 'booking.created' && message.json.data.eventId === eventId)?.json.data.attendeeName).toBe('Grace 5% %s');
});
