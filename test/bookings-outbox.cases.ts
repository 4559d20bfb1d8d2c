import { bookingInput, CANCEL_BOOKING, CREATE_BOOKING, createPublishedEvent, expectConsistent, storedCounts } from './helpers/bookings';
import { createTenant } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';
import { CREATE_ENDPOINT, WEBHOOK_TEST_ENV, WebhookReceiver } from './helpers/webhook-receiver';

/*
 * D7 and D18: a booking, its counts and its outbox message are one statement, so they commit or roll
 * back together; a refused booking writes no message. A test-only trigger makes the message's insert
 * fail for one organization: the booking must then not exist either, on an event that keeps its count
 * on its row and on a slotted one.
 */

const ctx = useTestApp(WEBHOOK_TEST_ENV);
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await new WebhookReceiver().listen();
  ctx.beforeClose(() => receiver.close());
});

const sql = () => ctx.app.orm.em.fork().getConnection();

async function tenantWithEndpoint() {
  const tenant = await createTenant(ctx.app.orm);
  const created = await ctx.app.client.graphql(tenant.key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?org=${tenant.organization.id}` } });
  expect(created.body.errors).toBeUndefined();
  return tenant;
}

async function messages(organizationId: string, type: string): Promise<number> {
  const [row] = await sql().execute<Array<{ count: string }>>('select count(*) as count from webhook_messages where organization_id = ? and type = ?', [
    organizationId,
    type,
  ]);
  return Number(row.count);
}

test.each([
  ['an event that keeps its count on its row', 50],
  ['a slotted event', 1000],
])('%s: a booking whose outbox message cannot be written is not made; a refused booking writes no message', async (_kind, capacity) => {
  const { key, organization } = await tenantWithEndpoint();
  const event = await createPublishedEvent(ctx.app.client, key, { capacity });
  const made = await ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(event.slug, { quantity: 2 }) });
  expect(made.body.data.createBooking.status).toBe('CONFIRMED');
  expect(await messages(organization.id, 'booking.created')).toBe(1);

  const trigger = `fail_outbox_${organization.id.toLowerCase()}`;
  await sql().execute(`create function ${trigger}() returns trigger language plpgsql as $$
    begin
      if new.organization_id = '${organization.id}' then raise exception 'test: the outbox refuses this message'; end if;
      return new;
    end $$`);
  await sql().execute(`create trigger ${trigger} before insert on webhook_messages for each row execute function ${trigger}()`);
  try {
    const failed = await ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(event.slug, { quantity: 3 }) });
    expect(failed.body.errors[0].extensions.code).toBe('INTERNAL_ERROR');
    const cancelled = await ctx.app.client.graphql(key, CANCEL_BOOKING, { id: made.body.data.createBooking.id });
    expect(cancelled.body.errors[0].extensions.code).toBe('INTERNAL_ERROR');
  } finally {
    await sql().execute(`drop trigger ${trigger} on webhook_messages`);
    await sql().execute(`drop function ${trigger}()`);
  }
  let counts = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(counts);
  expect(counts).toMatchObject({ registrationCount: 2, confirmedBookings: 1 });
  expect(await messages(organization.id, 'booking.created')).toBe(1);
  expect(await messages(organization.id, 'booking.cancelled')).toBe(0);

  // Refused (more than is left): no booking, no message.
  const refused = await ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(event.slug, { quantity: capacity }) });
  expect(refused.body.errors[0].extensions.code).toBe('SOLD_OUT');
  expect(await messages(organization.id, 'booking.created')).toBe(1);
  counts = await storedCounts(ctx.app.orm, event.id);
  expect(counts).toMatchObject({ registrationCount: 2, confirmedBookings: 1 });
});

// Changes legitimately only if the workers stop being woken by NOTIFY (src/platform/outbox/outbox.ts); a NOTIFY inside a change serializes every commit.
test('performance guard: no NOTIFY inside a change: the booking is one statement, the workers are woken after it commits (a NOTIFY), and the message arrives', async () => {
  const { key, organization } = await tenantWithEndpoint();
  const event = await createPublishedEvent(ctx.app.client, key, { capacity: 50 });
  ctx.app.sql.reset();
  const made = await ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(event.slug) });
  const id = made.body.data.createBooking.id as string;
  await receiver.waitFor((received) => received.some((message) => message.json.type === 'booking.created' && message.json.data.id === id));
  const captured = () => ctx.app.sql.statements.filter((statement) => !/api_key_usage|webhook_endpoints e on|from webhook_messages m/.test(statement));
  const notifiedAfterBooking = () => {
    const all = captured();
    const at = all.findIndex((statement) => /insert into bookings/.test(statement));
    return at >= 0 && all.slice(at + 1).some((statement) => /select pg_notify/.test(statement));
  };
  // This process's worker is woken directly and may deliver before the NOTIFY for the other processes
  // is sent (it waits for one still on its way, the publication's, then goes): give it a moment.
  for (let waited = 0; !notifiedAfterBooking() && waited < 5_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  const statements = captured();
  const booking = statements.findIndex((statement) => /insert into bookings/.test(statement));
  expect(booking).toBeGreaterThanOrEqual(0);
  expect(statements.some((statement) => /^\[query\] begin/.test(statement))).toBe(false);
  expect(statements[booking]).not.toMatch(/pg_notify/);
  // (A NOTIFY of the event's publication may still come after the reset: the booking's is after the booking.)
  expect(statements.slice(booking + 1).some((statement) => /select pg_notify/.test(statement))).toBe(true);
  expect(await messages(organization.id, 'booking.created')).toBe(1);
});
