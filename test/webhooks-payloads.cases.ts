import { addTicketType } from '../src/modules/ticket-type/commands/add-ticket-type';
import { removeTicketType } from '../src/modules/ticket-type/commands/remove-ticket-type';
import { updateTicketType } from '../src/modules/ticket-type/commands/update-ticket-type';
import { SLOTTED_MIN_CAPACITY } from '../src/modules/inventory/inventory.policy';
import { ADD_TICKET_TYPE, bookingInput, CANCEL_BOOKING, CREATE_BOOKING, createPublishedEvent, REMOVE_TICKET_TYPE, ticket, UPDATE_TICKET_TYPE } from './helpers/bookings';
import { createTenant, eventInput } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';
import { CREATE_ENDPOINT, WEBHOOK_TEST_ENV, WebhookReceiver, type ReceivedMessage } from './helpers/webhook-receiver';
import { systemScope } from '../src/platform/db/unit-of-work-scope';

/*
 * A webhook's `data` is the resource as the API shows it (D18), made by the presenters from the rows
 * the change holds, without running a request. For every message a real receiver gets, this compares
 * `data` with what the API answers for the same resource right after that change: the event with
 * GET /v1/events/{slug}, the booking with GET /v1/bookings/{id} and GraphQL booking(id) (the same
 * fields), a ticket type with its entry in the event's `ticketTypes` plus `eventId` and `eventSlug` (docs/webhooks.md).
 */

const ctx = useTestApp(WEBHOOK_TEST_ENV);
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await new WebhookReceiver().listen();
  ctx.beforeClose(() => receiver.close());
});

const BOOKING = `query($id: ID!) { booking(id: $id) {
  id eventId eventSlug ticketType { id } quantity attendeeEmail attendeeName status createdAt cancelledAt expiresAt confirmedAt checkedInAt
} }`;

async function tenantWithEndpoint() {
  const tenant = await createTenant(ctx.app.orm);
  const created = await ctx.app.client.graphql(tenant.key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?org=${tenant.organization.id}` } });
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
    const answer = await ctx.app.client.rest('GET', `/v1/events/${slug}`, key);
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
     * REST booking is the payload's shape) but for its ticket code (D29: never in a message), and
     * booking(id) (ticketType { id } as ticketTypeId).
     */
    async expectBooking(type: string, id: string): Promise<void> {
      const message = await next(type);
      const rest = await ctx.app.client.rest('GET', `/v1/bookings/${id}`, key);
      expect(rest.status).toBe(200);
      // The REST body ends with the ticket code (D29, for a key holding bookings:read), which no message carries.
      const { ticketCode, ...shown } = rest.body as Record<string, unknown>;
      expect(Object.keys(rest.body).at(-1)).toBe('ticketCode');
      expect(message.json.data).not.toHaveProperty('ticketCode');
      if (typeof ticketCode === 'string') expect(message.body).not.toContain(ticketCode);
      expect(message.json.data).toEqual(shown);
      expect(JSON.stringify(message.json.data)).toBe(JSON.stringify(shown));
      const answer = await ctx.app.client.graphql(key, BOOKING, { id });
      expect(answer.body.errors).toBeUndefined();
      const { ticketType, ...fields } = answer.body.data.booking;
      expect(message.json.data).toEqual({ ...fields, ticketTypeId: ticketType?.id ?? null });
    },
    /**
     * The next message is `type` (ticket_type.*), its data the ticket type `id` as the event's GET shows
     * it now (`as` for a deleted one: as it was), with its event's id and slug, in that key order.
     */
    async expectTicketType(type: string, slug: string, id: string, as?: Record<string, unknown>): Promise<void> {
      const message = await next(type);
      const event = await restEvent(slug);
      const shown = as ?? event.ticketTypes.find((ticketType: { id: string }) => ticketType.id === id);
      expect(shown).toBeDefined();
      const expected = { ...shown, eventId: event.id, eventSlug: slug };
      expect(message.json.data).toEqual(expected);
      expect(JSON.stringify(message.json.data)).toBe(JSON.stringify(expected));
    },
    /** The next messages are `types` in any order (one request's changes): returns them by type. */
    async expectSet(types: string[]): Promise<Map<string, ReceivedMessage>> {
      await receiver.waitFor(() => byOrg(organizationId).length >= seen + types.length);
      const got = byOrg(organizationId).slice(seen, seen + types.length);
      seen += types.length;
      expect(got.map((message) => message.json.type).sort()).toEqual([...types].sort());
      return new Map(got.map((message) => [message.json.type, message]));
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
    const answer = await ctx.app.client.graphql(key, query, variables);
    expect(answer.body.errors).toBeUndefined();
    return answer.body.data;
  };

  // Created with ticket types (prices with and without cents, a free one), a timezone and a capacity.
  const created = await ctx.app.client.rest(
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
  expect((await ctx.app.client.rest('PUT', `/v1/events/${created.body.slug}`, key, {
    title: 'Renamed', slug, venueAddress: '1 Main Street', coverImage: 'https://example.com/cover.png', description: null,
  })).status).toBe(200);
  await messages.expectEvent('event.updated', slug);

  // Ticket type changes send their own messages (ticket_type.*); the next event message shows them too.
  const added = (await gql(ADD_TICKET_TYPE, { eventSlug: slug, input: { name: 'Late', price: 20, currency: 'EUR', quantity: 3 } })).addTicketType;
  await messages.expectTicketType('ticket_type.created', slug, added.id);
  await gql(UPDATE_TICKET_TYPE, { id: createdEvent.ticketTypes[1].id, input: { price: 89.5 } });
  await messages.expectTicketType('ticket_type.updated', slug, createdEvent.ticketTypes[1].id);
  expect((await ctx.app.client.rest('PUT', `/v1/events/${slug}`, key, { status: 'PUBLISHED' })).status).toBe(200);
  const published = await messages.expectEvent('event.published', slug);
  expect(published.ticketTypes.map((ticketType: { name: string }) => ticketType.name)).toEqual(['GA', 'VIP', 'Free', 'Late']);

  // Bookings: their own messages; the event's counts show in its next message.
  const booking = (await gql(CREATE_BOOKING, { input: bookingInput(slug, { quantity: 2, ticketTypeId: createdEvent.ticketTypes[0].id }) })).createBooking;
  await messages.expectBooking('booking.created', booking.id);
  const untyped = (await gql(CREATE_BOOKING, { input: bookingInput(slug, { quantity: 1 }) })).createBooking;
  await messages.expectBooking('booking.created', untyped.id);
  expect((await ctx.app.client.rest('PUT', `/v1/events/${slug}`, key, { capacity: 40 })).status).toBe(200);
  const counted = await messages.expectEvent('event.updated', slug);
  expect([counted.registrationCount, counted.ticketTypes[0].sold]).toEqual([3, 2]);
  await gql(CANCEL_BOOKING, { id: booking.id });
  await messages.expectBooking('booking.cancelled', booking.id);

  // One GraphQL document: a ticket type removed and the event updated in the same request.
  const beforeRemoval = await ctx.app.client.rest('GET', `/v1/events/${slug}`, key);
  const removedAsItWas = beforeRemoval.body.ticketTypes.find((ticketType: { id: string }) => ticketType.id === added.id);
  await gql(
    `mutation($id: ID!, $slug: String!) {
      removeTicketType(id: $id) { id }
      updateEvent(slug: $slug, input: { title: "After removal" }) { id ticketTypes { id } }
    }`,
    { id: added.id, slug },
  );
  const both = await messages.expectSet(['ticket_type.deleted', 'event.updated']);
  expect(both.get('ticket_type.deleted')!.json.data).toEqual({ ...removedAsItWas, eventId: id, eventSlug: slug });
  const afterRemoval = await ctx.app.client.rest('GET', `/v1/events/${slug}`, key);
  expect(both.get('event.updated')!.json.data).toEqual(afterRemoval.body);
  expect(afterRemoval.body.ticketTypes.map((ticketType: { id: string }) => ticketType.id)).not.toContain(added.id);
  // A removal alone: its ticket_type.deleted message only.
  const free = (await ctx.app.client.rest('GET', `/v1/events/${slug}`, key)).body.ticketTypes.find((ticketType: { id: string }) => ticketType.id === createdEvent.ticketTypes[2].id);
  await gql(REMOVE_TICKET_TYPE, { id: createdEvent.ticketTypes[2].id });
  await messages.expectTicketType('ticket_type.deleted', slug, free.id, free);

  expect((await ctx.app.client.rest('PUT', `/v1/events/${slug}`, key, { status: 'CANCELLED' })).status).toBe(200);
  await messages.expectEvent('event.cancelled', slug);
  expect((await ctx.app.client.rest('PUT', `/v1/events/${slug}`, key, { status: 'DRAFT', venue: null })).status).toBe(200);
  await messages.expectEvent('event.updated', slug);
  await gql(CANCEL_BOOKING, { id: untyped.id });
  await messages.expectBooking('booking.cancelled', untyped.id);

  expect((await ctx.app.client.rest('DELETE', `/v1/events/${slug}`, key)).status).toBe(204);
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
  const created = await ctx.app.client.graphql(key, 'mutation($input: CreateEventInput!) { createEvent(input: $input) { slug } }', { input });
  expect(created.body.errors).toBeUndefined();
  const rest = await messages.expectEvent('event.created', created.body.data.createEvent.slug);
  expect(rest.ticketTypes.map((ticketType: { name: string }) => ticketType.name)).toEqual(['C', 'A', 'B']);
});

describe('ticket type messages', () => {
  const messageRows = async (organizationId: string) =>
    (await ctx.app.orm.em.fork().execute<Array<{ type: string; body: string }>>(
      `select type, body from webhook_messages where organization_id = ? and type like 'ticket_type.%' order by created_at, id`,
      [organizationId],
    )).map((row) => ({ type: row.type, data: JSON.parse(row.body).data }));

  test('each ticket type mutation writes exactly one message (none when it is refused or changes nothing), delivered to a real receiver', async () => {
    const tenant = await createTenant(ctx.app.orm);
    // Only the ticket type messages: the event's own stay out of this endpoint.
    const filtered = await ctx.app.client.graphql(tenant.key, CREATE_ENDPOINT, {
      input: { url: `${receiver.url}?org=${tenant.organization.id}`, eventTypes: ['ticket_type.created', 'ticket_type.updated', 'ticket_type.deleted'] },
    });
    expect(filtered.body.errors).toBeUndefined();
    const created = await ctx.app.client.rest('POST', '/v1/events', tenant.key, eventInput({ ticketTypes: [{ name: 'GA', price: 10, currency: 'EUR', quantity: 5 }] }));
    const { slug, id: eventId } = created.body;
    const gql = async (query: string, variables: Record<string, unknown>) => ctx.app.client.graphql(tenant.key, query, variables);

    const added = await gql(ADD_TICKET_TYPE, { eventSlug: slug, input: { name: 'VIP', price: 49.9, currency: 'EUR', quantity: 2 } });
    expect(added.body.errors).toBeUndefined();
    const vip = added.body.data.addTicketType;
    expect(await messageRows(tenant.organization.id)).toEqual([
      { type: 'ticket_type.created', data: { id: vip.id, name: 'VIP', price: 49.9, currency: 'EUR', quantity: 2, sold: 0, held: 0, eventId, eventSlug: slug } },
    ]);

    // Refused or empty changes write nothing: an unknown event, a quantity below sold, a sold type
    // removed, an update without a field.
    const ga = created.body.ticketTypes[0].id;
    expect((await ctx.app.client.rest('PUT', `/v1/events/${slug}`, tenant.key, { status: 'PUBLISHED' })).status).toBe(200);
    expect((await gql(CREATE_BOOKING, { input: bookingInput(slug, { quantity: 2, ticketTypeId: ga }) })).body.errors).toBeUndefined();
    expect((await gql(ADD_TICKET_TYPE, { eventSlug: 'no-such-event', input: { name: 'X', price: 1, currency: 'EUR', quantity: 1 } })).body.errors[0].extensions.code).toBe('EVENT_NOT_FOUND');
    expect((await gql(UPDATE_TICKET_TYPE, { id: ga, input: { quantity: 1 } })).body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    expect((await gql(REMOVE_TICKET_TYPE, { id: ga })).body.errors).toBeDefined();
    expect((await gql(UPDATE_TICKET_TYPE, { id: vip.id, input: {} })).body.errors).toBeUndefined();
    expect(await messageRows(tenant.organization.id)).toHaveLength(1);

    const updated = await gql(UPDATE_TICKET_TYPE, { id: ga, input: { name: 'General', quantity: 4 } });
    expect(updated.body.errors).toBeUndefined();
    const removed = await gql(REMOVE_TICKET_TYPE, { id: vip.id });
    expect(removed.body.errors).toBeUndefined();
    const rows = await messageRows(tenant.organization.id);
    expect(rows).toEqual([
      rows[0],
      { type: 'ticket_type.updated', data: { id: ga, name: 'General', price: 10, currency: 'EUR', quantity: 4, sold: 2, held: 0, eventId, eventSlug: slug } },
      { type: 'ticket_type.deleted', data: { id: vip.id, name: 'VIP', price: 49.9, currency: 'EUR', quantity: 2, sold: 0, held: 0, eventId, eventSlug: slug } },
    ]);

    // The receiver gets each one, signed, with the data stored.
    const delivered = await receiver.waitFor(() => byOrg(tenant.organization.id).length >= 3);
    expect(byOrg(tenant.organization.id).map((message) => ({ type: message.json.type, data: message.json.data })).sort((a, b) => a.type.localeCompare(b.type))).toEqual(
      [...rows].sort((a, b) => a.type.localeCompare(b.type)),
    );
    expect(delivered.length).toBeGreaterThanOrEqual(3);
  });

  test('a slotted event (inventory slots): its ticket types send the same messages, sold counted over the slots', async () => {
    const { key, organization } = await tenantWithEndpoint();
    const event = await createPublishedEvent(ctx.app.client, key, { capacity: SLOTTED_MIN_CAPACITY, ticketTypes: [ticket({ name: 'GA', quantity: 70 })] });
    const ga = event.ticketTypes[0].id;
    expect((await ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(event.slug, { quantity: 3, ticketTypeId: ga }) })).body.errors).toBeUndefined();
    const added = await ctx.app.client.graphql(key, ADD_TICKET_TYPE, { eventSlug: event.slug, input: ticket({ name: 'Late', quantity: 10 }) });
    const lateId = added.body.data.addTicketType.id as string;
    expect((await ctx.app.client.graphql(key, UPDATE_TICKET_TYPE, { id: ga, input: { quantity: 60 } })).body.errors).toBeUndefined();
    expect((await ctx.app.client.graphql(key, REMOVE_TICKET_TYPE, { id: lateId })).body.errors).toBeUndefined();
    const rows = await messageRows(organization.id);
    expect(rows.map((row) => [row.type, row.data.id, row.data.quantity, row.data.sold, row.data.eventSlug])).toEqual([
      ['ticket_type.created', lateId, 10, 0, event.slug],
      ['ticket_type.updated', ga, 60, 3, event.slug],
      ['ticket_type.deleted', lateId, 10, 0, event.slug],
    ]);
  });

  test('a ticket type change that rolls back takes its message with it', async () => {
    const tenant = await tenantWithEndpoint();
    const created = await ctx.app.client.rest('POST', '/v1/events', tenant.key, eventInput({ ticketTypes: [{ name: 'GA', price: 10, currency: 'EUR', quantity: 5 }] }));
    const { slug } = created.body;
    const ga = created.body.ticketTypes[0].id;
    const failing = (work: (em: Parameters<typeof addTicketType>[0]) => Promise<unknown>) =>
      expect(
        ctx.app.orm.em.fork().transactional(async (em) => {
          await work(systemScope(em));
          throw new Error('the change failed after the mutation');
        }),
      ).rejects.toThrow('the change failed');
    await failing((em) => addTicketType(em, tenant.organization.id, slug, { name: 'Gone', price: 1, currency: 'EUR', quantity: 1 }));
    await failing((em) => updateTicketType(em, tenant.organization.id, ga, { name: 'Gone too' }));
    await failing((em) => removeTicketType(em, tenant.organization.id, ga));
    expect(await messageRows(tenant.organization.id)).toEqual([]);
    const event = (await ctx.app.client.rest('GET', `/v1/events/${slug}`, tenant.key)).body;
    expect(event.ticketTypes.map((ticketType: { name: string }) => ticketType.name)).toEqual(['GA']);

    // The same change committed writes its one message.
    await updateTicketType(systemScope(ctx.app.orm.em.fork()), tenant.organization.id, ga, { name: 'Kept' });
    expect((await messageRows(tenant.organization.id)).map((row) => row.type)).toEqual(['ticket_type.updated']);
  });
});

test('bookings changed through REST (D23): each message equals GET /v1/bookings/{id} of its moment, byte for byte', async () => {
  const { key, organization } = await tenantWithEndpoint();
  const messages = recorder(key, organization.id);
  const created = await ctx.app.client.rest('POST', '/v1/events', key, eventInput({ capacity: 10, ticketTypes: [{ name: 'GA', price: 5, currency: 'EUR', quantity: 5 }] }));
  await messages.expectEvent('event.created', created.body.slug);
  expect((await ctx.app.client.rest('PUT', `/v1/events/${created.body.slug}`, key, { status: 'PUBLISHED' })).status).toBe(200);
  await messages.expectEvent('event.published', created.body.slug);

  const held = await ctx.app.client.rest('POST', `/v1/events/${created.body.slug}/bookings`, key, {
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
  expect((await ctx.app.client.rest('POST', `/v1/bookings/${id}/confirm`, key)).status).toBe(200);
  await messages.expectBooking('booking.confirmed', id);
  expect((await ctx.app.client.rest('POST', `/v1/bookings/${id}/check-in`, key)).status).toBe(200);
  await messages.expectBooking('booking.checked_in', id);
  expect((await ctx.app.client.rest('DELETE', `/v1/bookings/${id}/check-in`, key)).status).toBe(200);
  await messages.expectBooking('booking.check_in_undone', id);
  expect((await ctx.app.client.rest('POST', `/v1/bookings/${id}/cancel`, key)).status).toBe(200);
  await messages.expectBooking('booking.cancelled', id);
  expect(byOrg(organization.id)).toHaveLength(messages.count);
});
