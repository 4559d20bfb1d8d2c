import { bookingInput, CREATE_BOOKING, createPublishedEvent, expectConsistent, storedCounts, ticket } from './helpers/bookings';
import { createTenant } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';
import { compileStatement } from '../src/platform/db/sql-statement';
import { ROW_SEATS, SLOT_SEATS, type InventoryMode, type Reservation } from '../src/modules/inventory/inventory-modes.repository';
import { SLOTTED_MIN_CAPACITY } from '../src/modules/inventory/inventory.policy';

// Each inventory mode's seats are written once (src/modules/inventory/inventory-modes.repository.ts)
// and compose beyond the statements that use them today: a booking's seats moved to another event in
// ONE statement, from either mode to either mode, built from the fragments alone (nothing below names
// a slot or a count). Both events' counts, slots and shares stay exact.

const ctx = useTestApp();

const TO: Reservation = {
  event: 'target',
  ticketTypeId: ':toTicketTypeId::text',
  quantity: ':quantity::int',
  held: '0',
  at: ':at::timestamptz',
  start: '0',
  // Only a booking that is there to move takes seats at the target.
  guard: ' and exists (select 1 from found)',
};

/** Moves a CONFIRMED booking counted in `from`'s mode to the event `toSlug`, in whichever mode that one is. */
const move = (from: InventoryMode) =>
  compileStatement(
    'test',
    'moveBooking',
    `with ${from.lockBooked('from_', { id: ':id', organizationId: ':organizationId', eventId: ':fromEventId', slot: ':slot::smallint', booking: 'b' })},
     found as (select b.id, b.quantity as confirmed, 0 as held from b where b.status = 'CONFIRMED'),
     target as (select id, slug, status, end_date, capacity, registration_count, held_count, slots from events where organization_id = :organizationId and slug = :toSlug),
     ${ROW_SEATS.reserve('to_', TO)},
     ${SLOT_SEATS.reserve('to_', TO)},
     taken as (select event_id, slot from to_row_ok union all select event_id, slot from to_slot_ok),
     moving as (select found.* from found where exists (select 1 from taken)),
     ${from.release('from_', 'moving', { confirmed: 'moving.confirmed', held: 'moving.held', at: ':at::timestamptz' })},
     moved as (
       update bookings k set event_id = taken.event_id, slot = taken.slot, ticket_type_id = :toTicketTypeId::text
         from moving, taken where k.id = moving.id returning k.id)
     select (select count(*) from moved)::int as moved`,
  );

const slotted = { capacity: SLOTTED_MIN_CAPACITY, ticketTypes: [ticket({ quantity: 100 })] };
const onRow = { capacity: 20, ticketTypes: [ticket({ quantity: 10 })] };

test.each([
  ['on its row', 'slotted', onRow, slotted],
  ['slotted', 'on its row', slotted, onRow],
  ['on its row', 'on its row', onRow, onRow],
  ['slotted', 'slotted', slotted, slotted],
])('a booking of an event %s moved to an event %s in one statement of the modes\' fragments: both events\' counts exact', async (_from, _to, fromEvent, toEvent) => {
  const { key, organization } = await createTenant(ctx.app.orm);
  const source = await createPublishedEvent(ctx.app.client, key, fromEvent);
  const target = await createPublishedEvent(ctx.app.client, key, toEvent);
  const made = await ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(source.slug, { quantity: 2, ticketTypeId: source.ticketTypes[0].id }) });
  const { id } = made.body.data.createBooking;
  const connection = ctx.app.orm.em.fork().getConnection();
  const [{ slot }] = await connection.execute<Array<{ slot: number | null }>>('select slot from bookings where id = ?', [id]);

  const statement = move(slot === null ? ROW_SEATS : SLOT_SEATS);
  const params = { id, organizationId: organization.id, fromEventId: source.id, slot, toSlug: target.slug, toTicketTypeId: target.ticketTypes[0].id, quantity: 2, at: new Date() };
  const [row] = await connection.execute<Array<{ moved: number }>>(statement.knexText, statement.knexValues(params));
  expect(row.moved).toBe(1);

  const [before, after] = [await storedCounts(ctx.app.orm, source.id), await storedCounts(ctx.app.orm, target.id)];
  for (const counts of [before, after]) expectConsistent(counts);
  expect([before.registrationCount, before.ticketTypes[0].sold]).toEqual([0, 0]);
  expect([after.registrationCount, after.ticketTypes[0].sold]).toEqual([2, 2]);
  // Moved again, it is no longer there to move: nothing changes.
  const [again] = await connection.execute<Array<{ moved: number }>>(statement.knexText, statement.knexValues(params));
  expect(again.moved).toBe(0);
  expect((await storedCounts(ctx.app.orm, target.id)).registrationCount).toBe(2);
});
