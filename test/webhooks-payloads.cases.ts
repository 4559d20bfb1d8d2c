import { ADD_TICKET_TYPE, bookingInput, CANCEL_BOOKING, CREATE_BOOKING, REMOVE_TICKET_TYPE, UPDATE_TICKET_TYPE } from './helpers/bookings';
import { createTenant, eventInput } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';
import { CREATE_ENDPOINT, WEBHOOK_TEST_ENV, WebhookReceiver, type ReceivedMessage } from './helpers/webhook-receiver';

/*
 * A webhook's `data` is the resource as the API shows it (D18), made by the presenters from the rows
 * the change holds, without running a request. For every message a real receiver gets, this compares
 * `data` with what the API answers for the same resource right after that change: the event with
 * GET /v1/events/{slug}, the booking with GET /v1/bookings/{id} and GraphQL booking(id) (the same fields).
 */

let app: TestApp;
let receiver: WebhookReceiver;
beforeAll(async () => {
  app = await startTestApp(WEBHOOK_TEST_ENV);
  receiver = await new WebhookReceiver().listen();
});
afterAll(async () => {
  await receiver.close();
  await app.close();
});

const BOOKING = `query($id: ID!) { booking(id: $id) {
  id eventId eventSlug ticketType { id } quantity attendeeEmail attendeeName status createdAt cancelledAt expiresAt confirmedAt checkedInAt
} }`;

async function tenantWithEndpoint() {
  const tenant = await createTenant(app.orm);
  const created = await app.client.graphql(tenant.key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?org=${tenant.organization.id}` } });
  expect(created.body.errors).toBeUndefined();
  return tenant;
}

function byOrg(organizationId: string): ReceivedMessage[] {
  return receiver.received.filter((message) => message.path.endsWith(`?org=${organizationId}`));
}

/**
 * One change at a time: after each change the test waits for its message (the count of received
 * messages grows by one, or stays when the change sends none), so each message meets the API's answer
 * of the moment it was sent.
 */
function recorder(key: string, organizationId: string) {
  let seen = 0;
  const next = async (type: string): Promise<ReceivedMessage> => {
    await receiver.waitFor(() => byOrg(organizationId).length > seen);
    const message = byOrg(organizationId)[seen];
    seen += 1;
    expect(message.json.type).toBe(type);
    return message;
  };
  const restEvent = async (slug: string) => {
    const answer = await app.client.rest('GET', `/v1/events/${slug}`, key);
    expect(answer.status).toBe(200);
    return answer.body;
  };
  return {
    /** The next message is `type`, and its data is GET /v1/events/{slug} now. */
    async expectEvent(type: string, slug: string): Promise<Record<string, any>> {
      const message = await next(type);
      const rest = await restEvent(slug);
      expect(message.json.data).toEqual(rest);
      // Byte for byte as well: the same fields in the same order.
      expect(JSON.stringify(message.json.data)).toBe(JSON.stringify(rest));
      return rest;
    },
    /**
     * The next message is `type`, and its data is GET /v1/bookings/{id} now, byte for byte (D23: the
     * REST booking is the payload's shape), and booking(id) (ticketType { id } as ticketTypeId).
     */
    async expectBooking(type: string, id: string): Promise<void> {
      const message = await next(type);
      const rest = await app.client.rest('GET', `/v1/bookings/${id}`, key);
      expect(rest.status).toBe(200);
      expect(message.json.data).toEqual(rest.body);
      expect(JSON.stringify(message.json.data)).toBe(JSON.stringify(rest.body));
      const answer = await app.client.graphql(key, BOOKING, { id });
      expect(answer.body.errors).toBeUndefined();
      const { ticketType, ...fields } = answer.body.data.booking;
      expect(message.json.data).toEqual({ ...fields, ticketTypeId: ticketType?.id ?? null });
    },
    async expectDeleted(id: string, slug: string): Promise<void> {
      const message = await next('event.deleted');
      expect(message.json.data).toEqual({ id, slug });
    },
    get count(): number {
      return seen;
    },
  };
}

test('each event message carries GET /v1/events/{slug} of its moment; each booking message booking(id)', async () => {
  const { key, organization } = await tenantWithEndpoint();
  const messages = recorder(key, organization.id);
  const gql = async (query: string, variables: Record<string, unknown>) => {
    const answer = await app.client.graphql(key, query, variables);
    expect(answer.body.errors).toBeUndefined();
    return answer.body.data;
  };

  // Created with ticket types (prices with and without cents, a free one), a timezone and a capacity.
  const created = await app.client.rest(
    'POST',
    '/v1/events',
    key,
    eventInput({
      description: '# Launch\n\nWith *markdown*.',
      timezone: 'Europe/Paris',
      venue: 'Main hall',
      capacity: 50,
      ticketTypes: [
        { name: 'GA', price: 12.5, currency: 'EUR', quantity: 10 },
        { name: 'VIP', price: 99.99, currency: 'EUR', quantity: 2 },
        { name: 'Free', price: 0, currency: 'EUR', quantity: 5 },
      ],
    }),
  );
  expect(created.status).toBe(201);
  const { id } = created.body;
  let slug: string = created.body.slug;
  const createdEvent = await messages.expectEvent('event.created', slug);
  expect(createdEvent.ticketTypes.map((ticketType: { price: number }) => ticketType.price)).toEqual([12.5, 99.99, 0]);

  // A PUT of several fields, the slug among them (DRAFT), and clearing one.
  slug = `${slug}-renamed`;
  expect((await app.client.rest('PUT', `/v1/events/${created.body.slug}`, key, {
    title: 'Renamed', slug, venueAddress: '1 Main Street', coverImage: 'https://example.com/cover.png', description: null,
  })).status).toBe(200);
  await messages.expectEvent('event.updated', slug);

  // Ticket type changes send nothing; the next event message shows them.
  const added = (await gql(ADD_TICKET_TYPE, { eventSlug: slug, input: { name: 'Late', price: 20, currency: 'EUR', quantity: 3 } })).addTicketType;
  await gql(UPDATE_TICKET_TYPE, { id: createdEvent.ticketTypes[1].id, input: { price: 89.5 } });
  expect((await app.client.rest('PUT', `/v1/events/${slug}`, key, { status: 'PUBLISHED' })).status).toBe(200);
  const published = await messages.expectEvent('event.published', slug);
  expect(published.ticketTypes.map((ticketType: { name: string }) => ticketType.name)).toEqual(['GA', 'VIP', 'Free', 'Late']);

  // Bookings: their own messages; the event's counts show in its next message.
  const booking = (await gql(CREATE_BOOKING, { input: bookingInput(slug, { quantity: 2, ticketTypeId: createdEvent.ticketTypes[0].id }) })).createBooking;
  await messages.expectBooking('booking.created', booking.id);
  const untyped = (await gql(CREATE_BOOKING, { input: bookingInput(slug, { quantity: 1 }) })).createBooking;
  await messages.expectBooking('booking.created', untyped.id);
  expect((await app.client.rest('PUT', `/v1/events/${slug}`, key, { capacity: 40 })).status).toBe(200);
  const counted = await messages.expectEvent('event.updated', slug);
  expect([counted.registrationCount, counted.ticketTypes[0].sold]).toEqual([3, 2]);
  await gql(CANCEL_BOOKING, { id: booking.id });
  await messages.expectBooking('booking.cancelled', booking.id);

  // One GraphQL document: a ticket type removed and the event updated in the same request.
  await gql(
    `mutation($id: ID!, $slug: String!) {
      removeTicketType(id: $id) { id }
      updateEvent(slug: $slug, input: { title: "After removal" }) { id ticketTypes { id } }
    }`,
    { id: added.id, slug },
  );
  const afterRemoval = await messages.expectEvent('event.updated', slug);
  expect(afterRemoval.ticketTypes.map((ticketType: { id: string }) => ticketType.id)).not.toContain(added.id);
  // A removal alone sends nothing: the next message is the cancellation.
  await gql(REMOVE_TICKET_TYPE, { id: createdEvent.ticketTypes[2].id });

  expect((await app.client.rest('PUT', `/v1/events/${slug}`, key, { status: 'CANCELLED' })).status).toBe(200);
  await messages.expectEvent('event.cancelled', slug);
  expect((await app.client.rest('PUT', `/v1/events/${slug}`, key, { status: 'DRAFT', venue: null })).status).toBe(200);
  await messages.expectEvent('event.updated', slug);
  await gql(CANCEL_BOOKING, { id: untyped.id });
  await messages.expectBooking('booking.cancelled', untyped.id);

  expect((await app.client.rest('DELETE', `/v1/events/${slug}`, key)).status).toBe(204);
  await messages.expectDeleted(id, slug);
  expect(byOrg(organization.id)).toHaveLength(messages.count);
});

test('GraphQL createEvent: the created message equals GET, ticket types in the order given', async () => {
  const { key, organization } = await tenantWithEndpoint();
  const messages = recorder(key, organization.id);
  const input = eventInput({
    capacity: 7,
    ticketTypes: ['C', 'A', 'B'].map((name, index) => ({ name, price: index + 0.05, currency: 'USD', quantity: index })),
  });
  const created = await app.client.graphql(key, 'mutation($input: CreateEventInput!) { createEvent(input: $input) { slug } }', { input });
  expect(created.body.errors).toBeUndefined();
  const rest = await messages.expectEvent('event.created', created.body.data.createEvent.slug);
  expect(rest.ticketTypes.map((ticketType: { name: string }) => ticketType.name)).toEqual(['C', 'A', 'B']);
});

test('bookings changed through REST (D23): each message equals GET /v1/bookings/{id} of its moment, byte for byte', async () => {
  const { key, organization } = await tenantWithEndpoint();
  const messages = recorder(key, organization.id);
  const created = await app.client.rest('POST', '/v1/events', key, eventInput({ capacity: 10, ticketTypes: [{ name: 'GA', price: 5, currency: 'EUR', quantity: 5 }] }));
  await messages.expectEvent('event.created', created.body.slug);
  expect((await app.client.rest('PUT', `/v1/events/${created.body.slug}`, key, { status: 'PUBLISHED' })).status).toBe(200);
  await messages.expectEvent('event.published', created.body.slug);

  const held = await app.client.rest('POST', `/v1/events/${created.body.slug}/bookings`, key, {
    ticketTypeId: created.body.ticketTypes[0].id,
    quantity: 2,
    attendeeEmail: 'ada@example.com',
    attendeeName: 'Ada "The Countess", Lovelace',
    hold: true,
    holdMinutes: 3,
  });
  expect(held.status).toBe(201);
  const { id } = held.body;
  await messages.expectBooking('booking.held', id);
  expect((await app.client.rest('POST', `/v1/bookings/${id}/confirm`, key)).status).toBe(200);
  await messages.expectBooking('booking.confirmed', id);
  expect((await app.client.rest('POST', `/v1/bookings/${id}/check-in`, key)).status).toBe(200);
  await messages.expectBooking('booking.checked_in', id);
  expect((await app.client.rest('DELETE', `/v1/bookings/${id}/check-in`, key)).status).toBe(200);
  await messages.expectBooking('booking.check_in_undone', id);
  expect((await app.client.rest('POST', `/v1/bookings/${id}/cancel`, key)).status).toBe(200);
  await messages.expectBooking('booking.cancelled', id);
  expect(byOrg(organization.id)).toHaveLength(messages.count);
});
