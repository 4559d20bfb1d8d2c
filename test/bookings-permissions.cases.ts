import {
  ADD_TICKET_TYPE,
  bookingInput,
  CANCEL_BOOKING,
  CREATE_BOOKING,
  createPublishedEvent,
  LIST_BOOKINGS,
  REMOVE_TICKET_TYPE,
  ticket,
  UPDATE_TICKET_TYPE,
} from './helpers/bookings';
import { ALL_PERMISSIONS, createApiKey } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';

const ctx = useTestApp({}, { tenant: true });
let event: Awaited<ReturnType<typeof createPublishedEvent>>;
let bookingId: string;

beforeAll(async () => {
  event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 100, ticketTypes: [ticket()] });
  bookingId = (await ctx.app.client.graphql(ctx.key, CREATE_BOOKING, { input: bookingInput(event.slug) })).body.data.createBooking.id;
});

const keyWith = async (permissions: string[]) => (await createApiKey(ctx.app.orm, ctx.organizationId, { permissions })).key;

test('Event.bookings is a field-level permission: events:read alone reads the event and gets FORBIDDEN on that field only', async () => {
  const key = await keyWith(['events:read']);
  const response = await ctx.app.client.graphql(
    key,
    `query($slug: String!) { event(slug: $slug) { slug title registrationCount ticketTypes { sold } bookings { total } } }`,
    { slug: event.slug },
  );
  expect(response.status).toBe(200);
  expect(response.body.data.event).toEqual({
    slug: event.slug,
    title: 'Launch party',
    registrationCount: 1,
    ticketTypes: [{ sold: 0 }],
    bookings: null,
  });
  expect(response.body.errors).toHaveLength(1);
  expect(response.body.errors[0].path).toEqual(['event', 'bookings']);
  expect(response.body.errors[0].extensions).toEqual({
    code: 'FORBIDDEN',
    details: { requiredPermission: 'bookings:read', currentPermissions: ['events:read'] },
  });

  const both = await keyWith(['events:read', 'bookings:read']);
  const allowed = await ctx.app.client.graphql(both, `query($slug: String!) { event(slug: $slug) { bookings { total } } }`, { slug: event.slug });
  expect(allowed.body).toEqual({ data: { event: { bookings: { total: 1 } } } });
});

test('Booking.event needs events:read: bookings:read alone gets the booking with FORBIDDEN on that field', async () => {
  const key = await keyWith(['bookings:read']);
  const response = await ctx.app.client.graphql(
    key,
    `query($slug: String!) { bookings(eventSlug: $slug) { total bookings { id eventSlug event { title } } } }`,
    { slug: event.slug },
  );
  expect(response.body.data.bookings).toEqual({ total: 1, bookings: [{ id: bookingId, eventSlug: event.slug, event: null }] });
  expect(response.body.errors[0].extensions).toEqual({
    code: 'FORBIDDEN',
    details: { requiredPermission: 'events:read', currentPermissions: ['bookings:read'] },
  });
});

// Every new root field, the permission D2 gives it, and a call that needs nothing else.
const OPERATIONS: Array<{ name: string; permission: string; call: (key: string) => Promise<{ body: any; status: number }> }> = [
  { name: 'bookings', permission: 'bookings:read', call: (key) => ctx.app.client.graphql(key, LIST_BOOKINGS, { eventSlug: event.slug }) },
  { name: 'createBooking', permission: 'bookings:write', call: (key) => ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(event.slug) }) },
  { name: 'cancelBooking', permission: 'bookings:write', call: (key) => ctx.app.client.graphql(key, CANCEL_BOOKING, { id: 'bk_missing' }) },
  { name: 'members', permission: 'members:read', call: (key) => ctx.app.client.graphql(key, '{ members { total } }') },
  {
    name: 'addTicketType',
    permission: 'events:write',
    call: (key) => ctx.app.client.graphql(key, ADD_TICKET_TYPE, { eventSlug: event.slug, input: ticket({ name: 'Late' }) }),
  },
  { name: 'updateTicketType', permission: 'events:write', call: (key) => ctx.app.client.graphql(key, UPDATE_TICKET_TYPE, { id: 'tt_missing', input: {} }) },
  { name: 'removeTicketType', permission: 'events:write', call: (key) => ctx.app.client.graphql(key, REMOVE_TICKET_TYPE, { id: 'tt_missing' }) },
];

describe.each(OPERATIONS)('$name needs $permission', ({ name, permission, call }) => {
  test('a key with every other permission gets FORBIDDEN with details; nothing changes', async () => {
    const others = ALL_PERMISSIONS.filter((candidate) => candidate !== permission);
    const before = await ctx.app.orm.em.fork().getConnection().execute('select (select count(*) from bookings) as b, (select count(*) from ticket_types) as t');
    const response = await call(await keyWith(others));
    // Root-field permissions are checked before execution: HTTP 403 and no `data` at all.
    expect(response.status).toBe(403);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors[0].extensions).toEqual({
      code: 'FORBIDDEN',
      details: { requiredPermission: permission, currentPermissions: others },
    });
    const after = await ctx.app.orm.em.fork().getConnection().execute('select (select count(*) from bookings) as b, (select count(*) from ticket_types) as t');
    expect(after).toEqual(before);
  });

  test('a key with only that permission gets past the check', async () => {
    const response = await call(await keyWith([permission]));
    const codes = (response.body.errors ?? []).map((error: { extensions: { code: string } }) => error.extensions.code);
    expect(codes).not.toContain('FORBIDDEN');
    expect(response.status).toBeLessThan(500);
    if (codes.length === 0) expect(response.body.data[name]).toBeTruthy();
  });

  test('no key: 401 UNAUTHORIZED', async () => {
    const response = await call(undefined as unknown as string);
    expect(response.status).toBe(401);
    expect(response.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
  });
});
