import type { MikroORM } from '@mikro-orm/postgresql';
import type { OrganizationSnapshot } from '../../src/platform/auth/auth-context';
import { preparedStatements } from '../../src/platform/db/prepared-statements';
import { ServerSecrets } from '../../src/platform/crypto/server-secrets';
import { CreateBookingInput } from '../../src/modules/booking/booking.inputs';
import { findById } from '../../src/modules/booking/booking.repository';
import { presentBooking } from '../../src/modules/booking/booking.presenter';
import { cancelBooking } from '../../src/modules/booking/commands/cancel-booking';
import { createBooking } from '../../src/modules/booking/commands/create-booking';
import { createEvent } from '../../src/modules/event/commands/create-event';
import { deleteEvent } from '../../src/modules/event/commands/delete-event';
import { updateEvent } from '../../src/modules/event/commands/update-event';
import { CreateEventInput, UpdateEventInput } from '../../src/modules/event/event.inputs';
import { EventEntity } from '../../src/modules/event/event.entity';
import { EventStatus } from '../../src/modules/event/event-status';
import { presentEvent } from '../../src/modules/event/event.presenter';
import { findEventBySlug } from '../../src/modules/event/event.read-repository';
import { addTicketType } from '../../src/modules/ticket-type/commands/add-ticket-type';
import { TicketTypeInput } from '../../src/modules/ticket-type/ticket-type.inputs';
import { createWebhookEndpoint } from '../../src/modules/webhook/commands/create-webhook-endpoint';
import { bookingScope, inputOf, openCommandDatabase, organizationSnapshot, type CommandDatabase } from '../helpers/command-database';
import { uniqueSlug } from '../helpers/factories';
import { systemScope } from '../../src/platform/db/unit-of-work-scope';

// The presenters (D18 payloads) on real PostgreSQL without HTTP or a running service: the commands
// write each message's data from the rows they hold, and that data is what the read path answers.
let database: CommandDatabase;
let orm: MikroORM;
let organization: OrganizationSnapshot;
beforeAll(async () => {
  database = await openCommandDatabase();
  orm = database.orm;
  organization = await organizationSnapshot(orm);
  const runtime = { secrets: new ServerSecrets('presenters-test-key', undefined).box('webhook-signing-secret'), allowPrivateNetworks: true, wake: () => undefined };
  await createWebhookEndpoint(systemScope(orm.em.fork()), organization.id, { url: 'https://hooks.example.com/in' }, runtime);
});
afterAll(() => database.close());

const em = () => orm.em.fork();

/** What GET /v1/events/{slug} and GraphQL event(slug) answer: the read path's own statement. */
/** The event as the read path shows it: these events are of no series (D28: `series` null in the body). */
async function readPath(slug: string) {
  const view = await findEventBySlug(preparedStatements(em()), organization.id, slug);
  if (!view) return view;
  const { seriesId, ...rest } = view;
  expect(seriesId).toBeNull();
  return { ...rest, series: null };
}

/** The one message of `type` about the resource `id` (each change of these tests makes one). */
async function message(type: string, id: string): Promise<{ type: string; timestamp: string; data: Record<string, unknown> }> {
  const rows = await em().execute<Array<{ body: string }>>(`select body from webhook_messages where organization_id = ? and type = ?`, [organization.id, type]);
  const found = rows.map((row: { body: string }) => JSON.parse(row.body)).filter((body: { data: { id: string } }) => body.data.id === id);
  expect(found).toHaveLength(1);
  return found[0];
}

test('the event commands write the event as the read path shows it, without a running service', async () => {
  const slug = uniqueSlug();
  const event = await createEvent(
    systemScope(em()),
    organization,
    inputOf(CreateEventInput, {
      title: 'Show',
      slug,
      description: 'Markdown *kept*',
      startDate: new Date('2031-05-01T18:00:00.123Z'),
      endDate: new Date('2031-05-01T22:00:00Z'),
      venue: 'Hall',
      capacity: 9,
      ticketTypes: [
        inputOf(TicketTypeInput, { name: 'A', price: 9999999.99, currency: 'EUR', quantity: 3 }),
        inputOf(TicketTypeInput, { name: 'B', price: 0.1, currency: 'EUR', quantity: 0 }),
      ],
    }),
  );
  expect((await message('event.created', event.id)).data).toEqual(await readPath(slug));

  await addTicketType(systemScope(em()), organization.id, slug, inputOf(TicketTypeInput, { name: 'C', price: 5, currency: 'EUR', quantity: 1 }));
  await updateEvent(systemScope(em()), organization.id, slug, inputOf(UpdateEventInput, { status: EventStatus.PUBLISHED, capacity: null }));
  const published = await message('event.published', event.id);
  expect(published.data).toEqual(await readPath(slug));
  expect((published.data.ticketTypes as unknown[]).length).toBe(3);

  const booking = await createBooking(
    bookingScope(em()),
    organization.id,
    inputOf(CreateBookingInput, { eventSlug: slug, ticketTypeId: event.ticketTypes[0].id, quantity: 2, attendeeEmail: 'a@example.com', attendeeName: 'Ada' }),
  );
  await cancelBooking(systemScope(em()), organization.id, booking.id);
  const bookingCancelled = await message('booking.cancelled', booking.id);
  const stored = await findById(em(), organization.id, booking.id);
  expect(bookingCancelled.data).toEqual(presentBooking(stored, { id: event.id, slug }));
  expect((await message('booking.created', booking.id)).data).toEqual({ ...bookingCancelled.data, status: 'CONFIRMED', cancelledAt: null });

  await updateEvent(systemScope(em()), organization.id, slug, inputOf(UpdateEventInput, { status: EventStatus.CANCELLED }));
  expect((await message('event.cancelled', event.id)).data).toEqual(await readPath(slug));
  expect(await deleteEvent(systemScope(em()), organization.id, slug)).toEqual({ id: event.id, slug });
  expect((await message('event.deleted', event.id)).data).toEqual({ id: event.id, slug });
});

test('presentEvent derives COMPLETED from the end, as the read path does', async () => {
  const slug = uniqueSlug();
  const created = await createEvent(
    systemScope(em()),
    organization,
    inputOf(CreateEventInput, { title: 'Past', slug, startDate: new Date('2031-01-01T10:00:00Z'), endDate: new Date('2031-01-01T12:00:00Z') }),
  );
  await updateEvent(systemScope(em()), organization.id, slug, inputOf(UpdateEventInput, { status: EventStatus.PUBLISHED }));
  await em().execute(`update events set start_date = now() - interval '2 hours', end_date = now() - interval '1 hour' where id = ?`, [created.id]);
  const event = await em().findOneOrFail(EventEntity, { id: created.id }, { populate: ['ticketTypes'] });
  // Nothing booked: nothing held or checked in.
  const presented = presentEvent(event, event.ticketTypes.getItems().map((type) => ({ ...type, held: 0 })), { heldCount: 0, checkedInCount: 0 });
  expect(presented.status).toBe(EventStatus.COMPLETED);
  expect(presented).toEqual(await readPath(slug));
});
