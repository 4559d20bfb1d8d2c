import { eventInput } from './helpers/factories';
import { inSeconds } from './helpers/queue';
import { useTestApp } from './helpers/use-test-app';

// D30: an event's queue settings through both doors: on create and update, their defaults and
// bounds (D4 errors on queue.<field>), Event.queue in REST bodies and GraphQL, and onSaleAt fixed once passed.
jest.setTimeout(60_000);

const ctx = useTestApp({ QUEUE_INTERVAL_MS: '0' }, { tenant: true });

const QUEUE = 'queue { enabled opensAt onSaleAt admitPerMinute admissionMinutes maxSeatsPerAdmission }';
const CREATE = `mutation($input: CreateEventInput!) { createEvent(input: $input) { slug ${QUEUE} } }`;
const UPDATE = `mutation($slug: String!, $input: UpdateEventInput!) { updateEvent(slug: $slug, input: $input) { slug ${QUEUE} } }`;
const READ = `query($slug: String!) { event(slug: $slug) { ${QUEUE} } }`;

const fieldsOf = (error: { details: { errors: Array<{ field: string }> } }) => error.details.errors.map((failure) => failure.field).sort();

test('on create, REST and GraphQL: the queue as given, with its defaults; without one, null', async () => {
  const opensAt = inSeconds(600);
  const onSaleAt = inSeconds(1200);
  const rest = await ctx.app.client.rest('POST', '/v1/events', ctx.key, eventInput({ queue: { opensAt, onSaleAt, admitPerMinute: 250 } }));
  expect(rest.status).toBe(201);
  const expected = { enabled: true, opensAt: new Date(opensAt).toISOString(), onSaleAt: new Date(onSaleAt).toISOString(), admitPerMinute: 250, admissionMinutes: 10, maxSeatsPerAdmission: 4 };
  expect(rest.body.queue).toEqual(expected);
  expect((await ctx.app.client.rest('GET', `/v1/events/${rest.body.slug}`, ctx.key)).body.queue).toEqual(expected);
  expect((await ctx.app.client.graphql(ctx.key, READ, { slug: rest.body.slug })).body.data.event.queue).toEqual(expected);

  const graphql = await ctx.app.client.graphql(ctx.key, CREATE, {
    input: eventInput({ queue: { enabled: false, admitPerMinute: 100_000, admissionMinutes: 60, maxSeatsPerAdmission: 20 } }),
  });
  expect(graphql.body.data.createEvent.queue).toEqual({ enabled: false, opensAt: null, onSaleAt: null, admitPerMinute: 100_000, admissionMinutes: 60, maxSeatsPerAdmission: 20 });
  const plain = await ctx.app.client.rest('POST', '/v1/events', ctx.key, eventInput());
  expect(plain.body.queue).toBeNull();
  expect((await ctx.app.client.graphql(ctx.key, READ, { slug: plain.body.slug })).body.data.event.queue).toBeNull();
});

test('bounds and rules, every failing field at once, in both doors (400 VALIDATION_ERROR on queue.<field>)', async () => {
  const bad = { admitPerMinute: 0, admissionMinutes: 61, maxSeatsPerAdmission: 21 };
  const rest = await ctx.app.client.rest('POST', '/v1/events', ctx.key, eventInput({ queue: bad }));
  expect([rest.status, rest.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  expect(fieldsOf(rest.body.error)).toEqual(['queue.admissionMinutes', 'queue.admitPerMinute', 'queue.maxSeatsPerAdmission']);
  const graphql = await ctx.app.client.graphql(ctx.key, CREATE, { input: eventInput({ queue: { admitPerMinute: 100_001 } }) });
  expect(graphql.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  expect(fieldsOf(graphql.body.errors[0].extensions)).toEqual(['queue.admitPerMinute']);

  const missing = await ctx.app.client.rest('POST', '/v1/events', ctx.key, eventInput({ queue: { enabled: true } }));
  expect(fieldsOf(missing.body.error)).toEqual(['queue.admitPerMinute']);
  const backwards = await ctx.app.client.rest('POST', '/v1/events', ctx.key, eventInput({ queue: { admitPerMinute: 5, opensAt: inSeconds(600), onSaleAt: inSeconds(60) } }));
  expect(fieldsOf(backwards.body.error)).toEqual(['queue.opensAt']);
  const fraction = await ctx.app.client.rest('POST', '/v1/events', ctx.key, eventInput({ queue: { admitPerMinute: 1.5 } }));
  expect(fraction.status).toBe(400);
  const notADate = await ctx.app.client.rest('POST', '/v1/events', ctx.key, eventInput({ queue: { admitPerMinute: 5, opensAt: 'tomorrow' } }));
  expect([notADate.status, notADate.body.error.code, fieldsOf(notADate.body.error)]).toEqual([400, 'VALIDATION_ERROR', ['queue.opensAt']]);
});

test('update: the given fields change, the rest stay; a first queue needs admitPerMinute; null is refused; onSaleAt fixed once passed', async () => {
  const created = await ctx.app.client.rest('POST', '/v1/events', ctx.key, eventInput());
  const slug = created.body.slug as string;
  const first = await ctx.app.client.rest('PUT', `/v1/events/${slug}`, ctx.key, { queue: { enabled: true } });
  expect(fieldsOf(first.body.error)).toEqual(['queue.admitPerMinute']);
  const onSaleAt = inSeconds(3600);
  const set = await ctx.app.client.rest('PUT', `/v1/events/${slug}`, ctx.key, { queue: { admitPerMinute: 30, onSaleAt } });
  expect(set.status).toBe(200);
  expect(set.body.queue).toEqual({ enabled: true, opensAt: null, onSaleAt: new Date(onSaleAt).toISOString(), admitPerMinute: 30, admissionMinutes: 10, maxSeatsPerAdmission: 4 });

  const graphql = await ctx.app.client.graphql(ctx.key, UPDATE, { slug, input: { queue: { maxSeatsPerAdmission: 2, enabled: false } } });
  expect(graphql.body.data.updateEvent.queue).toMatchObject({ enabled: false, admitPerMinute: 30, maxSeatsPerAdmission: 2, onSaleAt: new Date(onSaleAt).toISOString() });
  expect((await ctx.app.client.rest('PUT', `/v1/events/${slug}`, ctx.key, { queue: null })).body.error.details.errors).toEqual([
    { field: 'queue', message: expect.stringContaining('null') },
  ]);

  // Moved into the past while it has not passed: the sale opens; from then on onSaleAt stays.
  const past = inSeconds(-5);
  expect((await ctx.app.client.rest('PUT', `/v1/events/${slug}`, ctx.key, { queue: { onSaleAt: past } })).status).toBe(200);
  const moved = await ctx.app.client.rest('PUT', `/v1/events/${slug}`, ctx.key, { queue: { onSaleAt: inSeconds(3600) } });
  expect([moved.status, fieldsOf(moved.body.error)]).toEqual([400, ['queue.onSaleAt']]);
  const same = await ctx.app.client.rest('PUT', `/v1/events/${slug}`, ctx.key, { queue: { onSaleAt: past, admitPerMinute: 40 } });
  expect([same.status, same.body.queue.admitPerMinute]).toEqual([200, 40]);
});

test('a change of the queue alone is a change: event.updated, and the answer (and the next read) shows it', async () => {
  const created = await ctx.app.client.rest('POST', '/v1/events', ctx.key, eventInput({ queue: { admitPerMinute: 10 } }));
  const before = created.body.updatedAt as string;
  const changed = await ctx.app.client.rest('PUT', `/v1/events/${created.body.slug}`, ctx.key, { queue: { admitPerMinute: 11 } });
  expect(changed.body.queue.admitPerMinute).toBe(11);
  expect(changed.body.updatedAt > before).toBe(true);
  const unchanged = await ctx.app.client.rest('PUT', `/v1/events/${created.body.slug}`, ctx.key, { queue: { admitPerMinute: 11 } });
  expect(unchanged.body.updatedAt).toBe(changed.body.updatedAt);
  expect(unchanged.body.queue.admitPerMinute).toBe(11);
});
