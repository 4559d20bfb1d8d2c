import { createTenant, eventInput } from './helpers/factories';
import { DOORS, eventApi, expectError, type Door, type EventApi } from './helpers/event-api';
import { insertBookings, storedEvent, storedTicketTypeCount } from './helpers/event-rows';
import { useTestApp } from './helpers/use-test-app';
import { BookingEntity, BookingStatus } from '../src/modules/booking/booking.entity';

// Spec 4.5 and D3: delete only without confirmed bookings; ticket types and cancelled bookings go with it.
const ctx = useTestApp();

const { CONFIRMED, CANCELLED } = BookingStatus;
const bookingCount = (eventId: string) => ctx.app.orm.em.fork().count(BookingEntity, { event: eventId });

describe.each(DOORS)('delete through %s', (door: Door) => {
  let api: EventApi;
  let organizationId: string;
  beforeAll(async () => {
    const tenant = await createTenant(ctx.app.orm);
    api = eventApi(ctx.app.client, tenant.key, door);
    organizationId = tenant.organization.id;
  });

  async function createWithTicketTypes() {
    const input = eventInput({
      ticketTypes: [
        { name: 'A', price: 10, currency: 'EUR', quantity: 5 },
        { name: 'B', price: 20, currency: 'EUR', quantity: 5 },
      ],
    });
    const created = await api.create(input);
    return { slug: input.slug as string, id: created.data.id as string, ticketTypeIds: created.data.ticketTypes.map((t: { id: string }) => t.id) };
  }

  test('removes the event and its ticket types', async () => {
    const event = await createWithTicketTypes();
    expect(await storedTicketTypeCount(ctx.app.orm, event.id)).toBe(2);
    const deleted = await api.delete(event.slug);
    expect(deleted.error).toBeUndefined();
    if (door === 'rest') expect([deleted.status, deleted.text]).toEqual([204, '']);
    expect(await storedEvent(ctx.app.orm, { organizationId, slug: event.slug })).toBeNull();
    expect(await storedTicketTypeCount(ctx.app.orm, event.id)).toBe(0);
    expectError(await api.get(event.slug), door, 'EVENT_NOT_FOUND', 404, { slug: event.slug });
    expectError(await api.delete(event.slug), door, 'EVENT_NOT_FOUND', 404, { slug: event.slug });
  });

  test('with confirmed bookings is 409 EVENT_HAS_BOOKINGS counting the confirmed ones; nothing is removed', async () => {
    const event = await createWithTicketTypes();
    await insertBookings(ctx.app.orm, { id: event.id, organizationId }, [CONFIRMED, CONFIRMED, CANCELLED, CONFIRMED, CANCELLED]);
    expectError(await api.delete(event.slug), door, 'EVENT_HAS_BOOKINGS', 409, { bookingCount: 3 });
    expect(await storedEvent(ctx.app.orm, { organizationId, slug: event.slug })).not.toBeNull();
    expect(await storedTicketTypeCount(ctx.app.orm, event.id)).toBe(2);
    expect(await bookingCount(event.id)).toBe(5);
  });

  test('a single confirmed booking blocks it (bookingCount 1)', async () => {
    const event = await createWithTicketTypes();
    await insertBookings(ctx.app.orm, { id: event.id, organizationId }, [CONFIRMED], event.ticketTypeIds[0]);
    expectError(await api.delete(event.slug), door, 'EVENT_HAS_BOOKINGS', 409, { bookingCount: 1 });
  });

  test('cancelled bookings do not block it, and go with the event (also those holding a ticket type)', async () => {
    const event = await createWithTicketTypes();
    await insertBookings(ctx.app.orm, { id: event.id, organizationId }, [CANCELLED, CANCELLED]);
    await insertBookings(ctx.app.orm, { id: event.id, organizationId }, [CANCELLED], event.ticketTypeIds[1]);
    const deleted = await api.delete(event.slug);
    expect(deleted.error).toBeUndefined();
    if (door === 'rest') expect(deleted.status).toBe(204);
    expect(await storedEvent(ctx.app.orm, { organizationId, slug: event.slug })).toBeNull();
    expect(await bookingCount(event.id)).toBe(0);
    expect(await storedTicketTypeCount(ctx.app.orm, event.id)).toBe(0);
  });

  test('a cancelled event with confirmed bookings still cannot be deleted', async () => {
    const event = await createWithTicketTypes();
    await api.update(event.slug, { status: 'CANCELLED' });
    await insertBookings(ctx.app.orm, { id: event.id, organizationId }, [CONFIRMED, CONFIRMED]);
    expectError(await api.delete(event.slug), door, 'EVENT_HAS_BOOKINGS', 409, { bookingCount: 2 });
  });
});
