import { soldSql } from '../src/modules/inventory/inventory.repository';
import {
  ADD_TICKET_TYPE,
  bookingInput,
  CANCEL_BOOKING,
  CREATE_BOOKING,
  createPublishedEvent,
  REMOVE_TICKET_TYPE,
  storedCounts,
  ticket,
  UPDATE_TICKET_TYPE,
} from './helpers/bookings';
import { createTenant, eventInput } from './helpers/factories';
import type { HttpResponse } from './helpers/https-client';
import { useTestApp } from './helpers/use-test-app';

const ctx = useTestApp();

const add = (key: string, eventSlug: string, input: Record<string, unknown>) => ctx.app.client.graphql(key, ADD_TICKET_TYPE, { eventSlug, input });
const update = (key: string, id: unknown, input: Record<string, unknown>) => ctx.app.client.graphql(key, UPDATE_TICKET_TYPE, { id, input });
const remove = (key: string, id: unknown) => ctx.app.client.graphql(key, REMOVE_TICKET_TYPE, { id });

async function storedTicketType(id: string) {
  const rows = await ctx.app.orm.em
    .fork()
    .getConnection()
    .execute(`select name, price::text as price, currency, quantity, ${soldSql('t')} as sold from ticket_types t where id = ?`, [id]);
  return rows[0];
}

function fieldsOf(response: HttpResponse): string[] {
  expect(response.status).toBeLessThan(500);
  expect(response.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  return [...new Set<string>(response.body.errors[0].extensions.details.errors.map((error: { field: string }) => error.field))].sort();
}

test('addTicketType adds a type with sold 0, shown by REST GET in creation order', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { ticketTypes: [ticket()] });
  const response = await add(key, event.slug, { name: 'VIP', price: 149.5, currency: 'USD', quantity: 20 });
  const added = response.body.data.addTicketType;
  expect(added).toEqual({ id: expect.stringMatching(/^tt_[A-Za-z0-9]{20}$/), name: 'VIP', price: 149.5, currency: 'USD', quantity: 20, sold: 0 });
  expect(await storedTicketType(added.id)).toEqual({ name: 'VIP', price: '149.50', currency: 'USD', quantity: 20, sold: 0 });
  const read = await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, key);
  expect(read.body.ticketTypes.map((type: { name: string }) => type.name)).toEqual(['General admission', 'VIP']);
});

test.each([
  [0, '0.00'],
  [0.1, '0.10'],
  [19.99, '19.99'],
  [1234567.89, '1234567.89'],
  [9999999.99, '9999999.99'],
])('price %p is stored exactly as numeric %s and returned as a JSON number', async (price, stored) => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key);
  const response = await add(key, event.slug, ticket({ price }));
  expect(response.text).toContain(`"price":${price}`);
  expect((await storedTicketType(response.body.data.addTicketType.id)).price).toBe(stored);
  const read = await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, key);
  expect(read.body.ticketTypes[0].price).toBe(price);
});

test('addTicketType reports every failing field, the event slug included', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const response = await ctx.app.client.graphql(key, ADD_TICKET_TYPE, {
    eventSlug: 'Bad Slug',
    input: { name: ' ', price: -1, currency: 'eur', quantity: -1 },
  });
  expect(fieldsOf(response)).toEqual(['currency', 'eventSlug', 'name', 'price', 'quantity']);
});

test.each([
  ['three decimals', { price: 1.234 }, ['price']],
  ['price above the maximum', { price: 10_000_000 }, ['price']],
  ['unknown currency', { currency: 'XYZ' }, ['currency']],
  ['currency too long', { currency: 'EURO' }, ['currency']],
  ['name over 100 characters', { name: 'n'.repeat(101) }, ['name']],
  ['quantity above the maximum', { quantity: 1_000_001 }, ['quantity']],
])('addTicketType: %s -> VALIDATION_ERROR', async (_name, overrides, fields) => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key);
  expect(fieldsOf(await add(key, event.slug, ticket(overrides)))).toEqual(fields);
  const read = await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, key);
  expect(read.body.ticketTypes).toEqual([]);
});

test('addTicketType variables of the wrong type: 400 naming each field', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key);
  const response = await add(key, event.slug, { name: 1, price: 'free', quantity: 2.5 });
  expect(response.status).toBe(400);
  expect(fieldsOf(response)).toEqual(['currency', 'name', 'price', 'quantity']);
});

test('event create takes ticket types through both doors, with the same currency rule', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const rest = await ctx.app.client.rest('POST', '/v1/events', key, eventInput({ ticketTypes: [ticket(), ticket({ currency: 'eur' })] }));
  expect(rest.status).toBe(400);
  expect(rest.body.error.details.errors).toEqual([{ field: 'ticketTypes[1].currency', message: expect.stringMatching(/ISO 4217/) }]);
  const graphql = await ctx.app.client.graphql(key, 'mutation($input: CreateEventInput!) { createEvent(input: $input) { ticketTypes { name sold } } }', {
    input: eventInput({ ticketTypes: [ticket({ name: 'Early bird', quantity: 0 })] }),
  });
  expect(graphql.body.data.createEvent.ticketTypes).toEqual([{ name: 'Early bird', sold: 0 }]);
});

test('updateTicketType changes the given fields and never takes quantity below sold', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { ticketTypes: [ticket({ quantity: 10 })] });
  const id = event.ticketTypes[0].id;
  await ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(event.slug, { ticketTypeId: id, quantity: 4 }) });

  const renamed = await update(key, id, { name: 'Standard', price: 30.25 });
  expect(renamed.body.data.updateTicketType).toEqual({ id, name: 'Standard', price: 30.25, currency: 'EUR', quantity: 10, sold: 4 });

  const below = await update(key, id, { quantity: 3, currency: 'GBP' });
  expect(below.body.errors[0].extensions).toEqual({
    code: 'VALIDATION_ERROR',
    details: { errors: [{ field: 'quantity', message: 'quantity cannot be below the 4 tickets already sold' }] },
  });
  expect(await storedTicketType(id)).toEqual({ name: 'Standard', price: '30.25', currency: 'EUR', quantity: 10, sold: 4 });
  expect(fieldsOf(await update(key, id, { quantity: 2, price: -5 }))).toEqual(['price', 'quantity']);

  // Down to exactly the number sold: sales stop.
  expect((await update(key, id, { quantity: 4 })).body.data.updateTicketType.quantity).toBe(4);
  const soldOut = await ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(event.slug, { ticketTypeId: id }) });
  expect(soldOut.body.errors[0].extensions.details).toEqual({ limitedBy: 'ticketType', ticketTypeId: id, available: 0, requested: 1 });
});

test('updateTicketType input checks: nulls, every failing field, the id', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { ticketTypes: [ticket()] });
  const id = event.ticketTypes[0].id;
  expect(fieldsOf(await update(key, id, { name: null, price: null, currency: null, quantity: null }))).toEqual([
    'currency',
    'name',
    'price',
    'quantity',
  ]);
  expect(fieldsOf(await update(key, 'ticket-1', { price: 0.001, currency: 'usd' }))).toEqual(['currency', 'id', 'price']);
  expect(fieldsOf(await remove(key, 'evt_abc'))).toEqual(['id']);
  const unchanged = await update(key, id, {});
  expect(unchanged.body.data.updateTicketType).toMatchObject({ id, name: 'General admission' });
});

test('removeTicketType refuses a type with sales (409 TICKET_TYPE_HAS_SALES) and removes it once they are cancelled', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { ticketTypes: [ticket(), ticket({ name: 'Unused' })] });
  const [sold, unused] = event.ticketTypes.map((type) => type.id);
  const booking = (await ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(event.slug, { ticketTypeId: sold, quantity: 2 }) })).body.data
    .createBooking;

  const refused = await remove(key, sold);
  expect(refused.body.errors[0].extensions).toEqual({ code: 'TICKET_TYPE_HAS_SALES', details: { id: sold, sold: 2 } });
  expect(await storedTicketType(sold)).toMatchObject({ sold: 2 });

  expect((await remove(key, unused)).body.data.removeTicketType).toMatchObject({ id: unused, name: 'Unused', sold: 0 });

  await ctx.app.client.graphql(key, CANCEL_BOOKING, { id: booking.id });
  expect((await remove(key, sold)).body.data.removeTicketType).toMatchObject({ id: sold, sold: 0 });
  expect(await storedTicketType(sold)).toBeUndefined();

  // The cancelled booking stays, without a ticket type; the counts still agree.
  const list = await ctx.app.client.graphql(key, 'query($slug: String!) { bookings(eventSlug: $slug) { bookings { id status ticketType { id } } } }', {
    slug: event.slug,
  });
  expect(list.body.data.bookings.bookings).toEqual([{ id: booking.id, status: 'CANCELLED', ticketType: null }]);
  expect((await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, key)).body.ticketTypes).toEqual([]);
  expect(await storedCounts(ctx.app.orm, event.id)).toMatchObject({ registrationCount: 0, confirmedQuantity: 0 });
  expect((await ctx.app.client.rest('DELETE', `/v1/events/${event.slug}`, key)).status).toBe(204);
});

test("another organization's ticket type answers exactly like a missing one; another organization's event is not found", async () => {
  const owner = await createTenant(ctx.app.orm);
  const stranger = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, owner.key, { ticketTypes: [ticket()] });
  const id = event.ticketTypes[0].id;
  const missing = 'tt_AAAAAAAAAAAAAAAAAAAA';

  for (const call of [
    (target: string) => update(stranger.key, target, { quantity: 1 }),
    (target: string) => remove(stranger.key, target),
  ]) {
    const foreign = await call(id);
    const absent = await call(missing);
    expect(foreign.body.errors[0].extensions).toEqual({ code: 'TICKET_TYPE_NOT_FOUND', details: { id } });
    expect(foreign.body.errors[0].message.replace(id, 'ID')).toBe(absent.body.errors[0].message.replace(missing, 'ID'));
    expect(absent.body.errors[0].extensions).toEqual({ code: 'TICKET_TYPE_NOT_FOUND', details: { id: missing } });
  }
  const foreignAdd = await add(stranger.key, event.slug, ticket());
  expect(foreignAdd.body.errors[0].extensions).toEqual({ code: 'EVENT_NOT_FOUND', details: { slug: event.slug } });
  expect(await storedTicketType(id)).toMatchObject({ quantity: 100, sold: 0 });
  expect((await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, owner.key)).body.ticketTypes).toHaveLength(1);
});
