import type { MikroORM } from '@mikro-orm/postgresql';
import type { OrganizationSnapshot } from '../../src/platform/auth/auth-context';
import { CreateBookingInput } from '../../src/modules/booking/booking.inputs';
import { cancelBooking } from '../../src/modules/booking/commands/cancel-booking';
import { createBooking } from '../../src/modules/booking/commands/create-booking';
import { createEvent } from '../../src/modules/event/commands/create-event';
import { updateEvent } from '../../src/modules/event/commands/update-event';
import { CreateEventInput, UpdateEventInput } from '../../src/modules/event/event.inputs';
import { EventEntity } from '../../src/modules/event/event.entity';
import { EventStatus } from '../../src/modules/event/event-status';
import { addTicketType } from '../../src/modules/ticket-type/commands/add-ticket-type';
import { removeTicketType } from '../../src/modules/ticket-type/commands/remove-ticket-type';
import { updateTicketType } from '../../src/modules/ticket-type/commands/update-ticket-type';
import { TicketTypeInput, TicketTypeUpdateInput } from '../../src/modules/ticket-type/ticket-type.inputs';
import { MAX_TICKET_TYPES } from '../../src/modules/ticket-type/ticket-type.policy';
import { bookingScope, inputOf, openCommandDatabase, organizationSnapshot, type CommandDatabase } from '../helpers/command-database';
import { failure } from '../helpers/command-failure';
import { uniqueSlug } from '../helpers/factories';
import { systemScope } from '../../src/platform/db/unit-of-work-scope';

// Booking and ticket type commands on real PostgreSQL, without HTTP (D6, D7): counts, locks, rules.
let database: CommandDatabase;
let orm: MikroORM;
let organization: OrganizationSnapshot;
beforeAll(async () => {
  database = await openCommandDatabase();
  orm = database.orm;
  organization = await organizationSnapshot(orm);
});
afterAll(() => database.close());

const em = () => orm.em.fork();

async function publishedEvent(capacity: number | null, ticketTypes: Array<Record<string, unknown>> = []) {
  const event = await createEvent(
    systemScope(em()),
    organization,
    inputOf(CreateEventInput, {
      title: 'Show',
      slug: uniqueSlug(),
      startDate: new Date('2031-05-01T18:00:00Z'),
      endDate: new Date('2031-05-01T22:00:00Z'),
      capacity,
      ticketTypes: ticketTypes.map((fields) => inputOf(TicketTypeInput, fields)),
    }),
  );
  await updateEvent(systemScope(em()), organization.id, event.slug, inputOf(UpdateEventInput, { status: EventStatus.PUBLISHED }));
  return event;
}

const book = (eventSlug: string, quantity: number, ticketTypeId?: string) =>
  createBooking(bookingScope(em()), organization.id, inputOf(CreateBookingInput, { eventSlug, ticketTypeId, quantity, attendeeEmail: 'a@example.com', attendeeName: ' Ada ' }));

async function counts(eventId: string) {
  return em().findOneOrFail(EventEntity, { id: eventId }, { populate: ['ticketTypes'] });
}

test('bookings count against the capacity and the ticket type; SOLD_OUT names the tighter limit', async () => {
  const event = await publishedEvent(5, [{ name: 'VIP', price: 10, currency: 'EUR', quantity: 3 }]);
  const [vip] = event.ticketTypes.getItems();
  const booking = await book(event.slug, 2, vip.id);
  expect(booking).toMatchObject({ quantity: 2, attendeeName: 'Ada', status: 'CONFIRMED' });
  expect(await failure(book(event.slug, 2, vip.id))).toMatchObject({ code: 'SOLD_OUT', details: { limitedBy: 'ticketType', available: 1, requested: 2 } });
  await book(event.slug, 3);
  expect(await failure(book(event.slug, 1))).toMatchObject({ code: 'SOLD_OUT', details: { limitedBy: 'capacity', available: 0 } });
  const stored = await counts(event.id);
  expect(stored.registrationCount).toBe(5);
  expect(stored.ticketTypes.getItems()[0].sold).toBe(2);
});

test('concurrent bookings never oversell (row locks), and every count matches', async () => {
  const event = await publishedEvent(7);
  const results = await Promise.allSettled(Array.from({ length: 10 }, () => book(event.slug, 1)));
  expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(7);
  expect((await counts(event.id)).registrationCount).toBe(7);
});

test('cancel gives the seats back once', async () => {
  const event = await publishedEvent(2, [{ name: 'A', price: 0, currency: 'EUR', quantity: 2 }]);
  const [type] = event.ticketTypes.getItems();
  const booking = await book(event.slug, 2, type.id);
  const cancelled = await cancelBooking(systemScope(em()), organization.id, booking.id);
  expect(cancelled).toMatchObject({ status: 'CANCELLED', cancelledAt: expect.any(Date) });
  expect(await failure(cancelBooking(systemScope(em()), organization.id, booking.id))).toMatchObject({ code: 'BOOKING_ALREADY_CANCELLED', details: { id: booking.id } });
  const stored = await counts(event.id);
  expect([stored.registrationCount, stored.ticketTypes.getItems()[0].sold]).toEqual([0, 0]);
});

test('only a PUBLISHED event takes bookings; another organization\'s booking and event are not found', async () => {
  const draft = await createEvent(
    systemScope(em()),
    organization,
    inputOf(CreateEventInput, { title: 'D', slug: uniqueSlug(), startDate: new Date('2031-05-01T18:00:00Z'), endDate: new Date('2031-05-01T22:00:00Z') }),
  );
  expect(await failure(book(draft.slug, 1))).toMatchObject({ code: 'EVENT_NOT_PUBLISHED', details: { status: 'DRAFT' } });
  const event = await publishedEvent(null);
  const booking = await book(event.slug, 1);
  const other = await organizationSnapshot(orm);
  expect(await failure(cancelBooking(systemScope(em()), other.id, booking.id))).toMatchObject({ code: 'BOOKING_NOT_FOUND' });
  expect(await failure(createBooking(bookingScope(em()), other.id, inputOf(CreateBookingInput, { eventSlug: event.slug, quantity: 1, attendeeEmail: 'a@example.com', attendeeName: 'A' })))).toMatchObject({ code: 'EVENT_NOT_FOUND' });
});

test('ticket types: quantity never below sold, a type with sales is not removed, at most MAX_TICKET_TYPES', async () => {
  const event = await publishedEvent(null, [{ name: 'A', price: 5, currency: 'EUR', quantity: 5 }]);
  const [type] = event.ticketTypes.getItems();
  await book(event.slug, 4, type.id);
  expect(await failure(updateTicketType(systemScope(em()), organization.id, type.id, inputOf(TicketTypeUpdateInput, { quantity: 3, name: '' })))).toMatchObject({
    code: 'VALIDATION_ERROR',
    details: { errors: [{ field: 'name', message: expect.any(String) }, { field: 'quantity', message: 'quantity cannot be below the 4 tickets already sold' }] },
  });
  expect(await updateTicketType(systemScope(em()), organization.id, type.id, inputOf(TicketTypeUpdateInput, { quantity: 4, price: 6.5 }))).toMatchObject({ quantity: 4, price: 6.5 });
  expect(await failure(removeTicketType(systemScope(em()), organization.id, type.id))).toMatchObject({ code: 'TICKET_TYPE_HAS_SALES', details: { sold: 4 } });

  for (let index = 1; index < MAX_TICKET_TYPES; index += 1) {
    await addTicketType(systemScope(em()), organization.id, event.slug, inputOf(TicketTypeInput, { name: `T${index}`, price: 1, currency: 'EUR', quantity: 1 }));
  }
  const extra = inputOf(TicketTypeInput, { name: 'One too many', price: 1, currency: 'EUR', quantity: 1 });
  expect(await failure(addTicketType(systemScope(em()), organization.id, event.slug, extra))).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ field: 'eventSlug' }] } });
  const removable = await addTicketType(systemScope(em()), organization.id, (await publishedEvent(null)).slug, extra);
  expect(await removeTicketType(systemScope(em()), organization.id, removable.id)).toMatchObject({ id: removable.id });
  const other = await organizationSnapshot(orm);
  expect(await failure(removeTicketType(systemScope(em()), other.id, type.id))).toMatchObject({ code: 'TICKET_TYPE_NOT_FOUND' });
});

// D6: update and remove are one statement that locks the event, then the ticket type, guarded
// by the rule on the row as locked; a sale that commits while the statement waits decides it.
describe('a sale that commits while a ticket type change waits for the event row', () => {
  async function sellingWhile<T>(eventId: string, ticketTypeId: string, quantity: number, write: () => Promise<T>): Promise<unknown> {
    const transaction = await orm.em.getKnex().transaction();
    await transaction.raw('select id from events where id = ? for update', [eventId]);
    await transaction.raw('update events set registration_count = registration_count + ? where id = ?', [quantity, eventId]);
    await transaction.raw('update ticket_types set sold = sold + ? where id = ?', [quantity, ticketTypeId]);
    const result = Promise.allSettled([write()]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await transaction.commit();
    const [settled] = await result;
    return settled.status === 'rejected' ? settled.reason : settled.value;
  }

  test('removing the type: refused as sold (TICKET_TYPE_HAS_SALES), the type stays', async () => {
    const event = await publishedEvent(null, [{ name: 'A', price: 5, currency: 'EUR', quantity: 5 }]);
    const [type] = event.ticketTypes.getItems();
    const outcome = await sellingWhile(event.id, type.id, 2, () => removeTicketType(systemScope(em()), organization.id, type.id));
    expect(outcome).toMatchObject({ code: 'TICKET_TYPE_HAS_SALES', details: { sold: 2 } });
    expect((await counts(event.id)).ticketTypes.getItems()).toHaveLength(1);
  });

  test('lowering its quantity below what is now sold: refused on quantity, nothing applies', async () => {
    const event = await publishedEvent(null, [{ name: 'A', price: 5, currency: 'EUR', quantity: 5 }]);
    const [type] = event.ticketTypes.getItems();
    const outcome = await sellingWhile(event.id, type.id, 3, () =>
      updateTicketType(systemScope(em()), organization.id, type.id, inputOf(TicketTypeUpdateInput, { quantity: 2, name: 'B' })),
    );
    expect(outcome).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ field: 'quantity', message: 'quantity cannot be below the 3 tickets already sold' }] } });
    expect((await counts(event.id)).ticketTypes.getItems()[0]).toMatchObject({ name: 'A', quantity: 5, sold: 3 });
  });

  test('concurrent adds at MAX_TICKET_TYPES - 1: exactly one is added', async () => {
    const event = await publishedEvent(null, Array.from({ length: MAX_TICKET_TYPES - 1 }, (_, index) => ({ name: `T${index}`, price: 1, currency: 'EUR', quantity: 1 })));
    const input = inputOf(TicketTypeInput, { name: 'Last', price: 1, currency: 'EUR', quantity: 1 });
    const results = await Promise.allSettled(Array.from({ length: 4 }, () => addTicketType(systemScope(em()), organization.id, event.slug, input)));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect((await counts(event.id)).ticketTypes.getItems()).toHaveLength(MAX_TICKET_TYPES);
  });
});
