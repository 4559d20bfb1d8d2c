import type { MikroORM } from '@mikro-orm/postgresql';
import type { OrganizationSnapshot } from '../../src/platform/auth/auth-context';
import { cancelBooking } from '../../src/modules/booking/commands/cancel-booking';
import { createBooking } from '../../src/modules/booking/commands/create-booking';
import { CreateBookingInput } from '../../src/modules/booking/booking.inputs';
import { createEvent } from '../../src/modules/event/commands/create-event';
import { deleteEvent } from '../../src/modules/event/commands/delete-event';
import { updateEvent } from '../../src/modules/event/commands/update-event';
import { CreateEventInput, UpdateEventInput } from '../../src/modules/event/event.inputs';
import { BookingEntity } from '../../src/modules/booking/booking.entity';
import { EventEntity } from '../../src/modules/event/event.entity';
import { EventStatus } from '../../src/modules/event/event-status';
import { TicketTypeEntity } from '../../src/modules/ticket-type/ticket-type.entity';
import { TicketTypeInput } from '../../src/modules/ticket-type/ticket-type.inputs';
import { bookingScope, inputOf, openCommandDatabase, organizationSnapshot, type CommandDatabase } from '../helpers/command-database';
import { failure } from '../helpers/command-failure';
import { uniqueSlug } from '../helpers/factories';
import { systemScope } from '../../src/platform/db/unit-of-work-scope';

// The event commands on real PostgreSQL, without HTTP: the case matrices of D3, D4 and D16. The
// both-doors suites (events-*.test.ts) prove the wiring with a few of these cases each.
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
const future = (days: number, hour = 9) => new Date(Date.UTC(2031, 0, days, hour));

function createInput(overrides: Record<string, unknown> = {}): CreateEventInput {
  return inputOf(CreateEventInput, { title: 'Launch', slug: uniqueSlug(), startDate: future(1), endDate: future(1, 17), ...overrides });
}

async function failingFields(promise: Promise<unknown>): Promise<string[]> {
  const error = await failure(promise);
  expect(error.code).toBe('VALIDATION_ERROR');
  const errors = (error.details as { errors: Array<{ field: string; message: string }> }).errors;
  for (const item of errors) expect(item.message).toMatch(new RegExp(`^${item.field.replace(/.*\./, '').replace(/\[\d+\]$/, '')} `));
  return [...new Set(errors.map((item) => item.field))].sort();
}

describe('createEvent: every field rule (D4, D16), every failing field at once, nothing stored', () => {
  test.each<[string, Record<string, unknown>, string[]]>([
    ['blank title', { title: '   ' }, ['title']],
    ['title over 200', { title: 'x'.repeat(201) }, ['title']],
    ['title over 200 code points (a character and its variation selector count twice)', { title: 'a\uFE0F'.repeat(101) }, ['title']],
    ['slug with capitals and spaces', { slug: 'Bad Slug' }, ['slug']],
    ['slug with a double hyphen', { slug: 'a--b' }, ['slug']],
    ['slug with a leading hyphen', { slug: '-launch' }, ['slug']],
    ['slug over 100', { slug: 'a'.repeat(101) }, ['slug']],
    ['description over 10,000', { description: 'x'.repeat(10_001) }, ['description']],
    ['startDate in the past', { startDate: new Date('2020-01-01T09:00:00Z') }, ['startDate']],
    ['endDate before startDate', { endDate: future(1, 8) }, ['endDate']],
    ['endDate equal to startDate', { endDate: future(1) }, ['endDate']],
    ['unknown timezone', { timezone: 'Mars/Olympus_Mons' }, ['timezone']],
    ['timezone that is an offset', { timezone: '+02:00' }, ['timezone']],
    ['venue over 300', { venue: 'v'.repeat(301) }, ['venue']],
    ['venueAddress over 500', { venueAddress: 'a'.repeat(501) }, ['venueAddress']],
    ['coverImage over http', { coverImage: 'http://example.com/a.jpg' }, ['coverImage']],
    ['coverImage relative', { coverImage: '/a.jpg' }, ['coverImage']],
    ['coverImage over 2,048', { coverImage: `https://x.example/${'p'.repeat(2048)}` }, ['coverImage']],
    ['capacity 0', { capacity: 0 }, ['capacity']],
    ['capacity over 1,000,000', { capacity: 1_000_001 }, ['capacity']],
    [
      'several at once',
      { title: '', slug: 'No', venue: 'v'.repeat(301), capacity: 0, timezone: 'Nowhere/City', startDate: new Date('2020-01-01T00:00:00Z') },
      ['capacity', 'slug', 'startDate', 'timezone', 'title', 'venue'],
    ],
  ])('%s', async (_name, overrides, fields) => {
    const input = createInput(overrides);
    expect(await failingFields(createEvent(systemScope(em()), organization, input))).toEqual(fields);
    expect(await em().count(EventEntity, { slug: input.slug })).toBe(0);
  });

  test('the limits themselves are accepted; the timezone defaults to the organization and is stored canonically', async () => {
    const event = await createEvent(
      systemScope(em()),
      organization,
      createInput({ title: 't'.repeat(200), slug: `a${'-b'.repeat(49)}c`, venue: 'v'.repeat(300), capacity: 1_000_000, venueAddress: 'a'.repeat(500) }),
    );
    expect(event).toMatchObject({ timezone: 'Europe/Paris', capacity: 1_000_000, status: EventStatus.DRAFT, registrationCount: 0 });
    expect((await createEvent(systemScope(em()), organization, createInput({ timezone: 'utc' }))).timezone).toBe('UTC');
  });

  test('ticket types are stored verbatim in the order given, whatever their names hold (one array literal per column)', async () => {
    const names = ['a"b', 'back\\slash', 'comma, {brace}', 'NULL', ' spaced ', 'ünï €'];
    const types = names.map((name, index) => inputOf(TicketTypeInput, { name, price: index + 0.5, currency: 'EUR', quantity: index }));
    const event = await createEvent(systemScope(em()), organization, createInput({ ticketTypes: types }));
    expect(event.ticketTypes.getItems().map(({ name, price, quantity }) => ({ name, price, quantity }))).toEqual(
      names.map((name, index) => ({ name, price: index + 0.5, quantity: index })),
    );
    const stored = await em().find(TicketTypeEntity, { event: event.id }, { orderBy: { createdAt: 'asc' } });
    expect(stored.map(({ id, name, price, quantity, sold }) => ({ id, name, price, quantity, sold }))).toEqual(
      event.ticketTypes.getItems().map(({ id, name, price, quantity }) => ({ id, name, price, quantity, sold: 0 })),
    );
  });

  test('a duplicate slug is 400 on slug, also in another organization it is free (D1)', async () => {
    const input = createInput();
    await createEvent(systemScope(em()), organization, input);
    expect(await failingFields(createEvent(systemScope(em()), organization, createInput({ slug: input.slug })))).toEqual(['slug']);
    const other = await organizationSnapshot(orm);
    expect((await createEvent(systemScope(em()), other, createInput({ slug: input.slug }))).slug).toBe(input.slug);
  });

  test('two creates of one slug racing: one event, the other 400 on slug (never a 500)', async () => {
    const slug = uniqueSlug();
    const results = await Promise.allSettled([0, 1, 2].map(() => createEvent(systemScope(em()), organization, createInput({ slug }))));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ field: 'slug' }] } });
    }
  });
});

describe('updateEvent (D3, D4, D16)', () => {
  async function created(overrides: Record<string, unknown> = {}) {
    return createEvent(systemScope(em()), organization, createInput(overrides));
  }
  const update = (slug: string, fields: Record<string, unknown>, organizationId = organization.id) =>
    updateEvent(systemScope(em()), organizationId, slug, inputOf(UpdateEventInput, fields));

  test('required fields cannot be cleared; optional ones can', async () => {
    const event = await created({ description: 'd', venue: 'v', venueAddress: 'a', coverImage: 'https://x.example/c.jpg', capacity: 5 });
    expect(await failingFields(update(event.slug, { title: null, slug: null, startDate: null, endDate: null, timezone: null, status: null }))).toEqual(
      ['endDate', 'slug', 'startDate', 'status', 'timezone', 'title'],
    );
    const cleared = await update(event.slug, { description: null, venue: null, venueAddress: null, coverImage: null, capacity: null });
    expect(cleared).toMatchObject({ description: null, venue: null, venueAddress: null, coverImage: null, capacity: null });
  });

  test('the schedule: end after the stored or given start, a moved start in the future', async () => {
    const event = await created();
    expect(await failingFields(update(event.slug, { endDate: future(1, 8) }))).toEqual(['endDate']);
    expect(await failingFields(update(event.slug, { startDate: future(2) }))).toEqual(['endDate']);
    expect(await failingFields(update(event.slug, { startDate: new Date('2021-03-01T09:00:00Z') }))).toEqual(['startDate']);
    expect(await update(event.slug, { startDate: future(2), endDate: future(2, 17) })).toMatchObject({ startDate: future(2), endDate: future(2, 17) });
  });

  test.each<[EventStatus, EventStatus, boolean]>([
    [EventStatus.DRAFT, EventStatus.PUBLISHED, true],
    [EventStatus.PUBLISHED, EventStatus.CANCELLED, true],
    [EventStatus.CANCELLED, EventStatus.PUBLISHED, false],
    [EventStatus.CANCELLED, EventStatus.DRAFT, true],
    [EventStatus.DRAFT, EventStatus.COMPLETED, false],
  ])('status %s → %s allowed: %s', async (from, to, allowed) => {
    const event = await created();
    if (from === EventStatus.CANCELLED) await update(event.slug, { status: EventStatus.CANCELLED });
    if (from === EventStatus.PUBLISHED) await update(event.slug, { status: EventStatus.PUBLISHED });
    if (allowed) expect((await update(event.slug, { status: to })).status).toBe(to);
    else expect(await failingFields(update(event.slug, { status: to }))).toEqual(['status']);
  });

  test('published: slug and startDate changes are 409 and nothing of the request applies', async () => {
    const event = await created({ title: 'Before' });
    await update(event.slug, { status: EventStatus.PUBLISHED });
    const error = await failure(update(event.slug, { title: 'After', slug: uniqueSlug(), startDate: future(3), endDate: future(3, 17) }));
    expect(error).toMatchObject({ code: 'EVENT_ALREADY_PUBLISHED', details: { immutableFields: ['slug', 'startDate'] } });
    expect(await em().findOne(EventEntity, { slug: event.slug })).toMatchObject({ title: 'Before' });
    expect((await update(event.slug, { slug: event.slug, startDate: event.startDate, title: 'After' })).title).toBe('After');
  });

  test('capacity never below the registrations (made by real bookings)', async () => {
    const event = await created({ capacity: 10 });
    await update(event.slug, { status: EventStatus.PUBLISHED });
    await createBooking(bookingScope(em()), organization.id, inputOf(CreateBookingInput, { eventSlug: event.slug, quantity: 5, attendeeEmail: 'a@example.com', attendeeName: 'A' }));
    expect(await failingFields(update(event.slug, { capacity: 4 }))).toEqual(['capacity']);
    expect(await update(event.slug, { capacity: 5 })).toMatchObject({ capacity: 5, registrationCount: 5 });
  });

  test('another organization\'s event is not found (D1)', async () => {
    const event = await created();
    const other = await organizationSnapshot(orm);
    expect(await failure(update(event.slug, { title: 'x' }, other.id))).toMatchObject({ code: 'EVENT_NOT_FOUND', details: { slug: event.slug } });
    expect(await failure(deleteEvent(systemScope(em()), other.id, event.slug))).toMatchObject({ code: 'EVENT_NOT_FOUND' });
  });
});

describe('deleteEvent (D3)', () => {
  test('only without confirmed bookings; cancelled ones go with the event', async () => {
    const event = await createEvent(systemScope(em()), organization, createInput());
    await updateEvent(systemScope(em()), organization.id, event.slug, inputOf(UpdateEventInput, { status: EventStatus.PUBLISHED }));
    const booking = await createBooking(
      bookingScope(em()),
      organization.id,
      inputOf(CreateBookingInput, { eventSlug: event.slug, quantity: 2, attendeeEmail: 'a@example.com', attendeeName: 'A' }),
    );
    expect(await failure(deleteEvent(systemScope(em()), organization.id, event.slug))).toMatchObject({ code: 'EVENT_HAS_BOOKINGS', details: { bookingCount: 1 } });
    await cancelBooking(systemScope(em()), organization.id, booking.id);
    expect(await deleteEvent(systemScope(em()), organization.id, event.slug)).toEqual({ id: event.id, slug: event.slug });
    expect(await em().count(BookingEntity, { id: booking.id })).toBe(0);
  });
});

// The writes decide without holding a lock and apply with one statement guarded on the row
// as locked. Another transaction holds the event's row lock with a change; the command's statement
// waits for it, and decides on the row as that transaction left it (as the locking reads did before).
describe('a change that commits while a write waits for the event row', () => {
  /** Runs `statements` in a transaction that holds its locks until `commit()`. */
  async function holding(statements: Array<[string, unknown[]]>) {
    const transaction = await orm.em.getKnex().transaction();
    for (const [sql, bindings] of statements) await transaction.raw(sql, bindings as never);
    return { commit: () => transaction.commit() };
  }
  /** `write` started while `held` holds the lock, which commits once the write has had time to reach it. */
  async function racing<T>(held: Awaited<ReturnType<typeof holding>>, write: () => Promise<T>): Promise<PromiseSettledResult<T>> {
    const result = Promise.allSettled([write()]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await held.commit();
    return (await result)[0];
  }
  const reason = (result: PromiseSettledResult<unknown>) => (result.status === 'rejected' ? result.reason : result.value);

  test('a booking confirmed meanwhile: the delete refuses (EVENT_HAS_BOOKINGS), nothing is deleted', async () => {
    const event = await createEvent(systemScope(em()), organization, createInput());
    const held = await holding([
      ['select id from events where id = ? for update', [event.id]],
      [
        `insert into bookings (id, organization_id, event_id, quantity, attendee_email, attendee_name, status, created_at)
         values (?, ?, ?, 2, 'a@example.com', 'A', 'CONFIRMED', now())`,
        [`bk_race${Date.now()}`, organization.id, event.id],
      ],
      ['update events set registration_count = registration_count + 2 where id = ?', [event.id]],
    ]);
    const result = await racing(held, () => deleteEvent(systemScope(em()), organization.id, event.slug));
    expect(reason(result)).toMatchObject({ code: 'EVENT_HAS_BOOKINGS', details: { bookingCount: 1 } });
    expect(await em().count(EventEntity, { id: event.id })).toBe(1);
  });

  test('registrations made meanwhile above the new capacity: the update refuses on capacity, nothing applies', async () => {
    const event = await createEvent(systemScope(em()), organization, createInput({ capacity: 10 }));
    const held = await holding([['update events set registration_count = 5 where id = ?', [event.id]]]);
    const result = await racing(held, () => updateEvent(systemScope(em()), organization.id, event.slug, inputOf(UpdateEventInput, { capacity: 4, title: 'After' })));
    expect(reason(result)).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ field: 'capacity' }] } });
    expect(await em().findOne(EventEntity, { id: event.id })).toMatchObject({ capacity: 10, title: 'Launch', registrationCount: 5 });
  });

  test('an update that renamed the event meanwhile: the update of the old slug finds no event (EVENT_NOT_FOUND)', async () => {
    const event = await createEvent(systemScope(em()), organization, createInput());
    const renamed = uniqueSlug();
    const held = await holding([['update events set slug = ? where id = ?', [renamed, event.id]]]);
    const result = await racing(held, () => updateEvent(systemScope(em()), organization.id, event.slug, inputOf(UpdateEventInput, { title: 'After' })));
    expect(reason(result)).toMatchObject({ code: 'EVENT_NOT_FOUND' });
    expect(await em().findOne(EventEntity, { id: event.id })).toMatchObject({ slug: renamed, title: 'Launch' });
  });

  test('an update that published the event meanwhile: a start date change is then refused (EVENT_ALREADY_PUBLISHED)', async () => {
    const event = await createEvent(systemScope(em()), organization, createInput());
    const held = await holding([["update events set status = 'PUBLISHED' where id = ?", [event.id]]]);
    const result = await racing(held, () =>
      updateEvent(systemScope(em()), organization.id, event.slug, inputOf(UpdateEventInput, { startDate: future(3), endDate: future(3, 17) })),
    );
    expect(reason(result)).toMatchObject({ code: 'EVENT_ALREADY_PUBLISHED', details: { immutableFields: ['startDate'] } });
  });

  test('another field changed meanwhile: the update reads again and applies on top of it', async () => {
    const event = await createEvent(systemScope(em()), organization, createInput());
    const held = await holding([["update events set venue = 'Elsewhere' where id = ?", [event.id]]]);
    const result = await racing(held, () => updateEvent(systemScope(em()), organization.id, event.slug, inputOf(UpdateEventInput, { title: 'After' })));
    expect(reason(result)).toMatchObject({ title: 'After', venue: 'Elsewhere' });
    expect(await em().findOne(EventEntity, { id: event.id })).toMatchObject({ title: 'After', venue: 'Elsewhere' });
  });
});
