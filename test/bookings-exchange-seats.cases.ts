import type { HttpsClient } from './helpers/https-client';
import { bookingInput, createPublishedEvent, expectConsistent, storedCounts, ticket, type CreatedEvent } from './helpers/bookings';
import { createTenant } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';
import { CREATE_WITH_CODE, DOORS, exchange, type Outcome } from './helpers/ticket-codes';
import { SLOTTED_MIN_CAPACITY } from '../src/modules/inventory/inventory.policy';

/*
 * D29, an exchange's seats: counts exact on both events for each pair of inventory modes (an event that
 * counts its seats on its row, capacity < 500; a slotted one, ≥ 500: inventory.policy.ts), held seats
 * counted at the target (lapsed ones not), a slotted target's room gathered from several slots, the
 * freed seats offered to the source's waiting list in the exchange's own transaction, a deadlock that
 * ends in a clean answer, and many exchanges in both directions racing bookings on two server instances:
 * never oversold, no 500, counts equal to the bookings' sum on both events.
 */

// Races on two instances, with slow paths on a loaded machine.
jest.setTimeout(120_000);

// The sweep (the waiting list's safety net, D21) as rare as it gets: an offer seen at once is the exchange's own.
const ctx = useTestApp({ HOLD_EXPIRY_INTERVAL_MS: '10000' }, { secondInstance: { HOLD_EXPIRY_INTERVAL_MS: '10000' } });

const client = () => ctx.app.client;
const sql = <T>(text: string, values: unknown[] = []) => ctx.app.orm.em.fork().getConnection().execute<T[]>(text, values);

const ON_ROW = { capacity: 20, ticketTypes: [ticket({ quantity: 10 })] };
const SLOTTED = { capacity: SLOTTED_MIN_CAPACITY, ticketTypes: [ticket({ quantity: 100 })] };
const MODES = { 'on its row': ON_ROW, slotted: SLOTTED } as const;

async function book(key: string, slug: string, overrides: Record<string, unknown> = {}, via: HttpsClient = client()): Promise<{ id: string; ticketCode: string }> {
  const response = await via.graphql(key, CREATE_WITH_CODE, { input: bookingInput(slug, overrides) });
  expect(response.body.errors).toBeUndefined();
  return response.body.data.createBooking;
}

const seatsOf = async (event: CreatedEvent) => {
  const counts = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(counts);
  return { registrationCount: counts.registrationCount, held: counts.held, sold: counts.ticketTypes[0]?.sold ?? null };
};
const stored = async (id: string) => (await sql<{ event_id: string; slot: number | null; ticket_type_id: string | null }>('select event_id, slot, ticket_type_id from bookings where id = ?', [id]))[0];

describe.each([
  ['on its row', 'slotted'],
  ['slotted', 'on its row'],
  ['on its row', 'on its row'],
  ['slotted', 'slotted'],
] as const)('from an event %s to an event %s', (from, to) => {
  test.each(DOORS)('through %s: both events\' counts, held seats and slots exact, there and back', async (door) => {
    const { key } = await createTenant(ctx.app.orm);
    const source = await createPublishedEvent(client(), key, MODES[from]);
    const target = await createPublishedEvent(client(), key, MODES[to]);
    const booking = await book(key, source.slug, { quantity: 2, ticketTypeId: source.ticketTypes[0].id });
    await book(key, source.slug, { quantity: 1, ticketTypeId: source.ticketTypes[0].id, hold: true });
    await book(key, target.slug, { quantity: 1, ticketTypeId: target.ticketTypes[0].id, hold: true });

    const there = await exchange(client(), door, key, booking.id, { eventSlug: target.slug, ticketTypeId: target.ticketTypes[0].id });
    expect(there.status).toBe(200);
    expect(await seatsOf(source)).toEqual({ registrationCount: 0, held: 1, sold: 0 });
    expect(await seatsOf(target)).toEqual({ registrationCount: 2, held: 1, sold: 2 });
    const moved = await stored(booking.id);
    expect(moved).toMatchObject({ event_id: target.id, ticket_type_id: target.ticketTypes[0].id });
    expect(moved.slot === null).toBe(to === 'on its row');

    const back = await exchange(client(), door, key, booking.id, { eventSlug: source.slug, ticketTypeId: source.ticketTypes[0].id });
    expect(back.status).toBe(200);
    expect(await seatsOf(source)).toEqual({ registrationCount: 2, held: 1, sold: 2 });
    expect(await seatsOf(target)).toEqual({ registrationCount: 0, held: 1, sold: 0 });
    expect((await stored(booking.id)).slot === null).toBe(from === 'on its row');
  });
});

describe('held seats at the target', () => {
  test('a live hold counts (SOLD_OUT with what is left); once past its expiresAt its seats are free for the exchange, the hold stored EXPIRED', async () => {
    const { key } = await createTenant(ctx.app.orm);
    const source = await createPublishedEvent(client(), key, { capacity: 10 });
    const target = await createPublishedEvent(client(), key, { capacity: 4 });
    const booking = await book(key, source.slug, { quantity: 2 });
    const hold = await book(key, target.slug, { quantity: 3, hold: true });

    const refused = await exchange(client(), 'rest', key, booking.id, { eventSlug: target.slug });
    expect([refused.status, refused.error]).toEqual([409, expect.objectContaining({ code: 'SOLD_OUT', details: { limitedBy: 'capacity', available: 1, requested: 2 } })]);
    expect(await seatsOf(target)).toEqual({ registrationCount: 0, held: 3, sold: null });

    await sql(`update bookings set expires_at = now() - interval '1 second' where id = ?`, [hold.id]);
    const moved = await exchange(client(), 'rest', key, booking.id, { eventSlug: target.slug });
    expect(moved.status).toBe(200);
    expect(await seatsOf(target)).toEqual({ registrationCount: 2, held: 0, sold: null });
    expect((await sql<{ status: string }>('select status from bookings where id = ?', [hold.id]))[0].status).toBe('EXPIRED');
  });

  test('a slotted target: held seats count in its slots; its room, spread one seat per slot, is gathered into one slot for a larger booking', async () => {
    const { key } = await createTenant(ctx.app.orm);
    const source = await createPublishedEvent(client(), key, ON_ROW);
    // 16 tickets of the type over 16 slots: one each.
    const target = await createPublishedEvent(client(), key, { capacity: SLOTTED_MIN_CAPACITY, ticketTypes: [ticket({ quantity: 16 })] });
    const large = await book(key, source.slug, { quantity: 4, ticketTypeId: source.ticketTypes[0].id });
    await book(key, target.slug, { quantity: 13, ticketTypeId: target.ticketTypes[0].id, hold: true });

    const refused = await exchange(client(), 'graphql', key, large.id, { eventSlug: target.slug, ticketTypeId: target.ticketTypes[0].id });
    expect([refused.status, refused.error]).toEqual([
      409,
      { code: 'SOLD_OUT', details: { limitedBy: 'ticketType', available: 3, requested: 4, ticketTypeId: target.ticketTypes[0].id } },
    ]);
    const small = await book(key, source.slug, { quantity: 3, ticketTypeId: source.ticketTypes[0].id });
    const moved = await exchange(client(), 'graphql', key, small.id, { eventSlug: target.slug, ticketTypeId: target.ticketTypes[0].id });
    expect(moved.status).toBe(200);
    expect(await seatsOf(target)).toEqual({ registrationCount: 3, held: 13, sold: 3 });
    expect(await seatsOf(source)).toEqual({ registrationCount: 4, held: 0, sold: 4 });
  });
});

describe("the source's waiting list (D21)", () => {
  const JOIN = 'mutation($input: JoinWaitlistInput!) { joinWaitlist(input: $input) { id status } }';
  const ENTRIES = 'query($slug: String!) { waitlist(eventSlug: $slug) { entries { id status quantity offeredBookingId offeredAt } } }';

  async function join(key: string, slug: string, quantity: number, ticketTypeId?: string): Promise<string> {
    const response = await client().graphql(key, JOIN, { input: bookingInput(slug, { quantity, ticketTypeId, attendeeName: `Waiter ${quantity}` }) });
    expect(response.body.errors).toBeUndefined();
    return response.body.data.joinWaitlist.id;
  }

  test.each([
    ['on its row', { capacity: 3 }, undefined],
    ['slotted', { capacity: SLOTTED_MIN_CAPACITY, ticketTypes: [ticket({ quantity: 3 })] }, 0],
  ] as const)('an event %s: the freed seats are offered in the exchange\'s transaction (offeredAt = the time the old code was superseded)', async (_mode, config, typeIndex) => {
    const { key } = await createTenant(ctx.app.orm);
    const source = await createPublishedEvent(client(), key, config);
    const target = await createPublishedEvent(client(), key, { capacity: 10 });
    const ticketTypeId = typeIndex === undefined ? undefined : source.ticketTypes[typeIndex].id;
    const booking = await book(key, source.slug, { quantity: 3, ticketTypeId });
    const waiting = [await join(key, source.slug, 2, ticketTypeId), await join(key, source.slug, 1, ticketTypeId)];

    expect((await exchange(client(), 'rest', key, booking.id, { eventSlug: target.slug })).status).toBe(200);
    const entries = (await client().graphql(key, ENTRIES, { slug: source.slug })).body.data.waitlist.entries;
    const [{ at }] = await sql<{ at: Date }>('select superseded_at as at from superseded_ticket_codes where booking_id = ?', [booking.id]);
    expect(entries.map((entry: { id: string; status: string; offeredAt: string }) => [entry.id, entry.status, entry.offeredAt])).toEqual(
      waiting.map((id) => [id, 'OFFERED', new Date(at).toISOString()]),
    );
    expect(await seatsOf(source)).toEqual({ registrationCount: 0, held: 3, sold: ticketTypeId === undefined ? null : 0 });
    expect(await seatsOf(target)).toEqual({ registrationCount: 3, held: 0, sold: null });
  });
});

test('a deadlock PostgreSQL reports to the exchange ends in a clean answer: the attempt starts again from its savepoint and the exchange is made', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const source = await createPublishedEvent(client(), key, { capacity: 10 });
  const target = await createPublishedEvent(client(), key, { capacity: 10 });
  const booking = await book(key, source.slug, { quantity: 2 });
  const waiting = async () =>
    (await sql<{ count: string }>(`select count(*) from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`))[0].count !== '0';

  // Another transaction holds the booking's row, waits until the exchange (holding both events' rows) waits
  // for it, then asks for the source event's row: a cycle, which PostgreSQL breaks by refusing the one that
  // waited first, the exchange.
  let answer: Promise<Outcome> | undefined;
  await ctx.app.orm.em.fork().transactional(async (other) => {
    await other.execute('select id from bookings where id = ? for update', [booking.id]);
    answer = exchange(client(), 'rest', key, booking.id, { eventSlug: target.slug });
    while (!(await waiting())) await new Promise((resolve) => setTimeout(resolve, 10));
    await other.execute('select id from events where id = ? for no key update', [source.id]);
  });
  const outcome = await answer!;
  expect(outcome.status).toBe(200);
  expect(await seatsOf(source)).toEqual({ registrationCount: 0, held: 0, sold: null });
  expect(await seatsOf(target)).toEqual({ registrationCount: 2, held: 0, sold: null });
});

describe.each([
  ['on their rows', 20],
  ['slotted', SLOTTED_MIN_CAPACITY],
] as const)('two events %s, nearly full, on two server instances', (_mode, capacity) => {
  test('16 exchanges in both directions racing 6 bookings: no 500, nothing oversold, each event\'s counts the sum of its bookings', async () => {
    const { key } = await createTenant(ctx.app.orm);
    const config = { capacity, ticketTypes: [ticket({ quantity: capacity })] };
    const events = [await createPublishedEvent(client(), key, config), await createPublishedEvent(client(), key, config)];
    const typeOf = (event: CreatedEvent) => event.ticketTypes[0].id;
    const singles: Array<Array<{ id: string }>> = [[], []];
    for (const [index, event] of events.entries()) {
      for (let n = 0; n < 8; n += 1) singles[index].push(await book(key, event.slug, { ticketTypeId: typeOf(event), attendeeEmail: `single${n}@example.com` }));
      // 4 seats left on each.
      await book(key, event.slug, { quantity: capacity - 12, ticketTypeId: typeOf(event) });
    }
    const clients = [ctx.app.client, ctx.second.client];
    const moves = singles.flatMap((ids, from) => ids.map((booking, n) => ({ booking, from, to: 1 - from, n })));
    const [exchanges, bookings] = await Promise.all([
      Promise.all(moves.map(({ booking, to, n }) => exchange(clients[n % 2], DOORS[(n + to) % 2], key, booking.id, { eventSlug: events[to].slug, ticketTypeId: typeOf(events[to]) }))),
      Promise.all(
        Array.from({ length: 6 }, (_, n) =>
          clients[(n + 1) % 2].graphql(key, CREATE_WITH_CODE, { input: bookingInput(events[n % 2].slug, { ticketTypeId: typeOf(events[n % 2]), attendeeEmail: `racer${n}@example.com` }) }),
        ),
      ),
    ]);

    expect(exchanges.filter((outcome) => outcome.status !== 200 && outcome.error?.code !== 'SOLD_OUT').map((outcome) => outcome.status)).toEqual([]);
    expect(bookings.filter((response) => response.status >= 500 || (response.body.errors && response.body.errors[0].extensions.code !== 'SOLD_OUT'))).toEqual([]);
    // Each exchange moved its booking (200) or left it where it was (SOLD_OUT).
    for (const [index, { booking, from, to }] of moves.entries()) expect((await stored(booking.id)).event_id).toBe(events[exchanges[index].status === 200 ? to : from].id);
    const booked = bookings.filter((response) => !response.body.errors).length;
    const after = await Promise.all(events.map(seatsOf));
    for (const counts of after) {
      expect(counts.registrationCount).toBeLessThanOrEqual(capacity);
      expect(counts.sold).toBe(counts.registrationCount);
    }
    expect(after[0].registrationCount + after[1].registrationCount).toBe(2 * (capacity - 4) + booked);
    // The bookings take at most 3 of each event's 4 free seats: the first exchange to run finds a seat.
    expect(exchanges.filter((outcome) => outcome.status === 200).length).toBeGreaterThan(0);
  });
});
