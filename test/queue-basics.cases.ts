import { createQueuedEvent, inSeconds, join, openSale, person, poll, until } from './helpers/queue';
import { useTestApp } from './helpers/use-test-app';

// D30 end to end over REST: settings, join, poll, admission, a booking with the admission.
jest.setTimeout(60_000);

const ctx = useTestApp({ QUEUE_INTERVAL_MS: '100' }, { tenant: true });

test('a queue from join to booking', async () => {
  const event = await createQueuedEvent(ctx.app.client, ctx.key, { admitPerMinute: 600 });
  const read = await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, ctx.key);
  expect(read.body.queue).toMatchObject({ enabled: true, admitPerMinute: 600, admissionMinutes: 10, maxSeatsPerAdmission: 4 });
  const ada = await join(ctx.app.client, ctx.key, event.slug, 'ada');
  expect([ada.status, ada.body]).toEqual([201, expect.objectContaining({ status: 'WAITING', position: null })]);
  expect(ada.headers.location).toBe(`/v1/queue/${ada.body.id}`);
  const again = await join(ctx.app.client, ctx.key, event.slug, 'ada');
  expect([again.status, again.body.id]).toEqual([200, ada.body.id]);
  const refused = await ctx.app.client.rest('POST', `/v1/events/${event.slug}/bookings`, ctx.key, { quantity: 1, ...person('ada') });
  expect([refused.status, refused.body.error.code]).toEqual([409, 'NOT_ON_SALE']);
  await openSale(ctx.app.client, ctx.key, event.slug);
  const admitted = await until(() => poll(ctx.app.client, ctx.key, ada.body.id), (r) => r.body.status === 'ADMITTED');
  expect(admitted.body.status).toBe('ADMITTED');
  const booked = await ctx.app.client.rest('POST', `/v1/events/${event.slug}/bookings`, ctx.key, { quantity: 2, queueEntryId: ada.body.id, ...person('ada') });
  expect(booked.status).toBe(201);
  const used = await poll(ctx.app.client, ctx.key, ada.body.id);
  expect(used.body).toMatchObject({ status: 'USED', bookingId: booked.body.id });
  const twice = await ctx.app.client.rest('POST', `/v1/events/${event.slug}/bookings`, ctx.key, { quantity: 1, queueEntryId: ada.body.id, ...person('ada') });
  expect([twice.status, twice.body.error.code]).toEqual([409, 'ADMISSION_USED']);
  const stats = await ctx.app.client.rest('GET', `/v1/events/${event.slug}/queue`, ctx.key);
  expect(stats.body).toEqual({ waiting: 0, admitted: 0, used: 1, admittedLastMinute: 1 });
  void inSeconds;
});
