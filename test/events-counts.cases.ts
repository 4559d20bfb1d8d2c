import { createPublishedEvent, ticket, type CreatedEvent } from './helpers/bookings';
import { eventApi } from './helpers/event-api';
import { useTestApp } from './helpers/use-test-app';
import { CREATE_ENDPOINT } from './helpers/webhook-receiver';

/*
 * D20's last bullet: both doors show the counts. After confirmed bookings, holds and check-ins, REST
 * (GET, the list, every answer that is an event) and GraphQL show the same heldCount, checkedInCount
 * and ticketTypes[].held, counted as D20 and D22 count them: a hold past its expiresAt is left out
 * (whether or not the expiry sweep has stored it yet), check-ins are bookings, not seats. Both ways an
 * event keeps its counts: on its row (a small capacity) and in inventory slots (no capacity).
 */
jest.setTimeout(60_000);

const ctx = useTestApp({}, { tenant: true });
beforeAll(async () => {
  const endpoint = await ctx.app.client.graphql(ctx.key, CREATE_ENDPOINT, { input: { url: 'https://hooks.example.com/counts' } });
  expect(endpoint.body.errors).toBeUndefined();
});

const attendee = (name: string) => ({ attendeeEmail: `${name}@example.com`, attendeeName: name });
const sql = <T>(text: string, values: unknown[] = []) => ctx.app.orm.em.fork().getConnection().execute<T[]>(text, values);

async function book(slug: string, body: Record<string, unknown>): Promise<{ id: string; status: string }> {
  const made = await ctx.app.client.rest('POST', `/v1/events/${slug}/bookings`, ctx.key, { ...attendee('ada'), ...body });
  expect(made.status).toBe(201);
  return made.body;
}

/** The REST list's item of `slug` and GraphQL's, each through its own door. */
async function listItems(slug: string): Promise<Array<Record<string, unknown>>> {
  const items = [];
  for (const door of ['rest', 'graphql'] as const) {
    const list = await eventApi(ctx.app.client, ctx.key, door).list({ limit: 100 });
    expect(list.error).toBeUndefined();
    items.push(list.data.events.find((event: { slug: string }) => event.slug === slug));
  }
  return items;
}

/**
 * An event with two ticket types and, through REST: 2 seats of A confirmed and checked in, 1 of A
 * confirmed, 3 of B held, 4 of B held then lapsed (its expiresAt moved into the past, as time passing
 * would). Counts: registrationCount 3, heldCount 3, checkedInCount 1; A sold 3 held 0; B sold 0 held 3.
 */
async function bookedEvent(capacity: number | null): Promise<{ event: CreatedEvent; a: string; b: string; checkedIn: string; held: string }> {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity, ticketTypes: [ticket({ name: 'A', quantity: 10 }), ticket({ name: 'B', quantity: 10 })] });
  const [a, b] = event.ticketTypes.map((type) => type.id);
  const checkedIn = await book(event.slug, { ticketTypeId: a, quantity: 2 });
  await book(event.slug, { ticketTypeId: a, quantity: 1 });
  const held = await book(event.slug, { ticketTypeId: b, quantity: 3, hold: true });
  expect(held.status).toBe('HELD');
  const lapsed = await book(event.slug, { ticketTypeId: b, quantity: 4, hold: true });
  expect((await ctx.app.client.rest('POST', `/v1/bookings/${checkedIn.id}/check-in`, ctx.key)).status).toBe(200);
  await sql(`update bookings set expires_at = now() - interval '1 second' where id = ?`, [lapsed.id]);
  return { event, a, b, checkedIn: checkedIn.id, held: held.id };
}

describe.each([
  ['on the event row', 20],
  ['in inventory slots', null],
])('counts kept %s', (_where, capacity) => {
  test('after holds and a check-in, REST GET, the REST list and GraphQL event / events show the same counts', async () => {
    const { event, a, b } = await bookedEvent(capacity);
    const counts = {
      registrationCount: 3,
      heldCount: 3,
      checkedInCount: 1,
      ticketTypes: [expect.objectContaining({ id: a, sold: 3, held: 0 }), expect.objectContaining({ id: b, sold: 0, held: 3 })],
    };
    const rest = await eventApi(ctx.app.client, ctx.key, 'rest').get(event.slug);
    const graphql = await eventApi(ctx.app.client, ctx.key, 'graphql').get(event.slug);
    expect(rest.status).toBe(200);
    expect(rest.data).toMatchObject(counts);
    expect(graphql.data).toEqual(rest.data);

    const [restItem, graphqlItem] = await listItems(event.slug);
    expect(restItem).toMatchObject({ registrationCount: 3, heldCount: 3, checkedInCount: 1 });
    expect(restItem).not.toHaveProperty('ticketTypes');
    expect(graphqlItem).toEqual(restItem);

    // The event of a booking has no counts read with it: the batched reads answer the same.
    const booking = await ctx.app.client.graphql(ctx.key, 'query($slug: String!) { bookings(eventSlug: $slug, limit: 1) { bookings { event { heldCount checkedInCount ticketTypes { held } } } } }', {
      slug: event.slug,
    });
    expect(booking.body.data.bookings.bookings[0].event).toEqual({ heldCount: 3, checkedInCount: 1, ticketTypes: [{ held: 0 }, { held: 3 }] });
  });

  test('every answer that is an event carries them: an update, an update that changes nothing, publishing again, cancelling; through both doors', async () => {
    const { event } = await bookedEvent(capacity);
    const counts = { heldCount: 3, checkedInCount: 1, ticketTypes: [expect.objectContaining({ held: 0 }), expect.objectContaining({ held: 3 })] };
    const rest = eventApi(ctx.app.client, ctx.key, 'rest');
    const graphql = eventApi(ctx.app.client, ctx.key, 'graphql');
    for (const [api, input] of [
      [rest, { title: 'Renamed' }],
      [rest, { title: 'Renamed' }],
      [graphql, { title: 'Renamed again' }],
      [rest, { status: 'PUBLISHED' }],
    ] as const) {
      const updated = await api.update(event.slug, input);
      expect({ input, error: updated.error }).toEqual({ input, error: undefined });
      expect(updated.data).toMatchObject(counts);
      expect(updated.data).toEqual((await rest.get(event.slug)).data);
    }
    // Cancelling leaves the holds as they are (they lapse or are cancelled on their own).
    const cancelled = await rest.update(event.slug, { status: 'CANCELLED' });
    expect(cancelled.data).toMatchObject({ status: 'CANCELLED', ...counts });
  });

  test('undoing the check-in and confirming the hold move the counts in both doors alike', async () => {
    const { event, checkedIn, held } = await bookedEvent(capacity);
    expect((await ctx.app.client.rest('DELETE', `/v1/bookings/${checkedIn}/check-in`, ctx.key)).status).toBe(200);
    expect((await ctx.app.client.rest('POST', `/v1/bookings/${held}/confirm`, ctx.key)).status).toBe(200);

    const rest = await eventApi(ctx.app.client, ctx.key, 'rest').get(event.slug);
    expect(rest.data).toMatchObject({
      registrationCount: 6,
      heldCount: 0,
      checkedInCount: 0,
      ticketTypes: [expect.objectContaining({ sold: 3, held: 0 }), expect.objectContaining({ sold: 3, held: 0 })],
    });
    expect((await eventApi(ctx.app.client, ctx.key, 'graphql').get(event.slug)).data).toEqual(rest.data);
    const [restItem, graphqlItem] = await listItems(event.slug);
    expect(restItem).toMatchObject({ registrationCount: 6, heldCount: 0, checkedInCount: 0 });
    expect(graphqlItem).toEqual(restItem);
  });
});

test('the event.updated message (D18) is the event as GET returns it after the change, its counts included', async () => {
  const { event } = await bookedEvent(20);
  const updated = await eventApi(ctx.app.client, ctx.key, 'rest').update(event.slug, { venue: 'Hall 2' });
  expect(updated.status).toBe(200);
  const rows = await sql<{ body: string }>(`select body from webhook_messages where organization_id = ? and type = 'event.updated'`, [ctx.organizationId]);
  const [message] = rows.map((row) => JSON.parse(row.body)).filter((body) => body.data.slug === event.slug);
  expect(message.data).toMatchObject({ heldCount: 3, checkedInCount: 1, ticketTypes: [expect.objectContaining({ held: 0 }), expect.objectContaining({ held: 3 })] });
  expect(message.data).toEqual((await eventApi(ctx.app.client, ctx.key, 'rest').get(event.slug)).data);
});

test('a raised capacity offered to the waiting list (D21): the answer counts the offer it made, as GET does after it', async () => {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 2 });
  await book(event.slug, { quantity: 2 });
  const joined = await ctx.app.client.rest('POST', `/v1/events/${event.slug}/waitlist`, ctx.key, { quantity: 1, ...attendee('grace') });
  expect(joined.status).toBe(201);
  const raised = await eventApi(ctx.app.client, ctx.key, 'rest').update(event.slug, { capacity: 3 });
  expect(raised.status).toBe(200);
  expect(raised.data).toMatchObject({ capacity: 3, registrationCount: 2, heldCount: 1 });
  // The offer's booking moves the event's updatedAt after the update's own: the rest is the same.
  const read = (await eventApi(ctx.app.client, ctx.key, 'rest').get(event.slug)).data;
  expect({ ...raised.data, updatedAt: read.updatedAt }).toEqual(read);

  const again = await ctx.app.client.rest('POST', `/v1/events/${event.slug}/waitlist`, ctx.key, { quantity: 1, ...attendee('alan') });
  expect(again.status).toBe(201);
  const throughGraphql = await eventApi(ctx.app.client, ctx.key, 'graphql').update(event.slug, { capacity: 4 });
  expect(throughGraphql.data).toMatchObject({ capacity: 4, heldCount: 2 });
});

test('a ticket type change answers its held and sends it in ticket_type.updated, as the event GET shows it; offers it makes are counted in the answer', async () => {
  const { event, b } = await bookedEvent(20);
  const update = 'mutation($id: ID!, $input: TicketTypeUpdateInput!) { updateTicketType(id: $id, input: $input) { id sold held } }';
  const renamed = await ctx.app.client.graphql(ctx.key, update, { id: b, input: { name: 'B prime' } });
  expect(renamed.body.data.updateTicketType).toEqual({ id: b, sold: 0, held: 3 });
  const rows = await sql<{ body: string }>(`select body from webhook_messages where organization_id = ? and type = 'ticket_type.updated'`, [ctx.organizationId]);
  const [message] = rows.map((row) => JSON.parse(row.body)).filter((body) => body.data.id === b);
  const shown = (await eventApi(ctx.app.client, ctx.key, 'rest').get(event.slug)).data.ticketTypes.find((type: { id: string }) => type.id === b);
  expect(message.data).toEqual({ ...shown, eventId: event.id, eventSlug: event.slug });

  // A ticket type sold out with someone waiting: a raised quantity is offered in the same transaction.
  const small = await createPublishedEvent(ctx.app.client, ctx.key, { ticketTypes: [ticket({ quantity: 2 })] });
  const type = small.ticketTypes[0].id;
  await book(small.slug, { ticketTypeId: type, quantity: 2 });
  const joined = await ctx.app.client.rest('POST', `/v1/events/${small.slug}/waitlist`, ctx.key, { ticketTypeId: type, quantity: 1, ...attendee('grace') });
  expect(joined.status).toBe(201);
  const raised = await ctx.app.client.graphql(ctx.key, update, { id: type, input: { quantity: 3 } });
  expect(raised.body.data.updateTicketType).toEqual({ id: type, sold: 2, held: 1 });
});
