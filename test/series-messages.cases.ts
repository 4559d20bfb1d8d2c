import { AUDIT_LOG } from './helpers/audit';
import { DOORS, eventApi, expectError, type Door } from './helpers/event-api';
import { createTenant } from './helpers/factories';
import { seriesApi, seriesInput } from './helpers/series';
import { useTestApp } from './helpers/use-test-app';
import { CREATE_ENDPOINT, verify, WEBHOOK_TEST_ENV, WebhookReceiver, type ReceivedMessage } from './helpers/webhook-receiver';

// D28 with D18 and D26: series.created / series.updated / series.deleted carry the occurrence ids (no
// event.created per occurrence), a booked date moved sends event.rescheduled (the event as GET
// returns it), each change has its audit entry; deleteSeries refuses while dates have bookings.
// Occurrences are events: bookings and holds work on them unchanged.
const ctx = useTestApp(WEBHOOK_TEST_ENV);
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await new WebhookReceiver().listen();
  ctx.beforeClose(() => receiver.close());
});

async function tenantWithEndpoint() {
  const tenant = await createTenant(ctx.app.orm);
  const created = await ctx.app.client.graphql(tenant.key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?org=${tenant.organization.id}` } });
  expect(created.body.errors).toBeUndefined();
  return { ...tenant, secret: created.body.data.createWebhookEndpoint.secret as string };
}

const byOrg = (organizationId: string): ReceivedMessage[] => receiver.received.filter((message) => message.path.endsWith(`?org=${organizationId}`));
const ofType = (organizationId: string, type: string) => byOrg(organizationId).filter((message) => message.json.type === type);

async function waitFor(organizationId: string, type: string, count = 1): Promise<ReceivedMessage[]> {
  await receiver.waitFor(() => ofType(organizationId, type).length >= count);
  return ofType(organizationId, type);
}

async function auditActions(key: string, action: string): Promise<any[]> {
  const answer = await ctx.app.client.graphql(key, AUDIT_LOG, { action, limit: 100 });
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data.auditLog.entries;
}

async function book(key: string, slug: string, hold = false) {
  const published = await ctx.app.client.rest('PUT', `/v1/events/${slug}`, key, { status: 'PUBLISHED' });
  expect(published.status).toBe(200);
  return ctx.app.client.rest('POST', `/v1/events/${slug}/bookings`, key, { quantity: 2, attendeeEmail: 'ada@example.com', attendeeName: 'Ada', hold });
}

describe.each(DOORS)('series messages and audit entries through %s', (door: Door) => {
  test('created, updated (with event.rescheduled for a booked date moved), deleted: each with its occurrence ids; no event.created per occurrence', async () => {
    const tenant = await tenantWithEndpoint();
    const api = seriesApi(ctx.app.client, tenant.key, door);
    const input = seriesInput();
    const created = await api.create(input);
    const occurrences = (await api.occurrences(input.slug as string)).data.events;
    const [createdMessage] = await waitFor(tenant.organization.id, 'series.created');
    expect(verify(tenant.secret, createdMessage)).toEqual(createdMessage.json);
    const rest = await ctx.app.client.rest('GET', `/v1/series/${input.slug}`, tenant.key);
    expect(createdMessage.json.data).toEqual({
      series: rest.body,
      occurrences: { created: occurrences.map((event: any) => event.id), updated: [], moved: [], deleted: [] },
    });
    expect(createdMessage.json.data.series.id).toBe(created.data.id);

    // A booked date moved with moveBooked: event.rescheduled, its data the event as GET returns it.
    const booked = occurrences[1];
    expect((await book(tenant.key, booked.slug)).status).toBe(201);
    const { preview } = await api.change(input.slug as string, { changes: { firstStart: '2027-03-02T19:00', recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=5'] }, moveBooked: true });
    const [updatedMessage] = await waitFor(tenant.organization.id, 'series.updated');
    expect(updatedMessage.json.data.occurrences).toEqual({
      created: [],
      updated: [],
      moved: preview.data.move.map((entry: any) => entry.eventId),
      deleted: [occurrences[5].id],
    });
    expect(updatedMessage.json.data.series).toMatchObject({ slug: input.slug, version: preview.data.version + 1, occurrenceCount: 5 });
    const [rescheduled] = await waitFor(tenant.organization.id, 'event.rescheduled');
    const event = await ctx.app.client.rest('GET', `/v1/events/${booked.slug}`, tenant.key);
    expect(rescheduled.json.data).toEqual(event.body);
    expect(JSON.stringify(rescheduled.json.data)).toBe(JSON.stringify(event.body));
    expect(event.body).toMatchObject({ startDate: '2027-03-09T18:00:00.000Z', registrationCount: 2, series: { id: created.data.id, slug: input.slug } });

    // Only unbooked dates left: deleted, with series.deleted naming every occurrence.
    expect((await ctx.app.client.rest('POST', `/v1/bookings/${(await ctx.app.client.rest('GET', `/v1/events/${booked.slug}/bookings`, tenant.key)).body.bookings[0].id}/cancel`, tenant.key)).status).toBe(200);
    const remaining = (await api.occurrences(input.slug as string)).data.events.map((item: any) => item.id);
    const deleted = await api.delete(input.slug as string);
    expect(deleted.error).toBeUndefined();
    const [deletedMessage] = await waitFor(tenant.organization.id, 'series.deleted');
    expect({ ...deletedMessage.json.data.occurrences, deleted: [...deletedMessage.json.data.occurrences.deleted].sort() }).toEqual({ created: [], updated: [], moved: [], deleted: [...remaining].sort() });
    expect(deletedMessage.json.data.series.slug).toBe(input.slug);

    expect(ofType(tenant.organization.id, 'event.created')).toEqual([]);
    expect(ofType(tenant.organization.id, 'event.deleted')).toEqual([]);
    // The event's own changes send their messages as for any event.
    expect(ofType(tenant.organization.id, 'event.published')).toHaveLength(1);

    const seriesId = created.data.id;
    expect((await auditActions(tenant.key, 'series.created')).map((entry) => [entry.targetId, entry.summary.slug])).toEqual([[seriesId, input.slug]]);
    expect((await auditActions(tenant.key, 'series.updated')).map((entry) => [entry.targetId, entry.summary.moved, entry.summary.deleted])).toEqual([[seriesId, 5, 1]]);
    const [deletion] = await auditActions(tenant.key, 'series.deleted');
    expect(deletion).toMatchObject({ targetId: seriesId, actor: { kind: 'API_KEY' }, summary: { slug: input.slug, occurrences: 5 } });
  });

  test('a split: series.updated for the earlier part, series.created for the new one; both audited', async () => {
    const tenant = await tenantWithEndpoint();
    const api = seriesApi(ctx.app.client, tenant.key, door);
    const input = seriesInput();
    await api.create(input);
    const occurrences = (await api.occurrences(input.slug as string)).data.events;
    const newSlug = `${input.slug}-b`;
    const { updated } = await api.change(input.slug as string, { scope: 'FOLLOWING', from: occurrences[4].slug, newSlug, changes: { venue: 'Annex' } });
    expect(updated.error).toBeUndefined();
    await waitFor(tenant.organization.id, 'series.created', 2);
    const [, split] = ofType(tenant.organization.id, 'series.created');
    expect(split.json.data.series).toMatchObject({ slug: newSlug, venue: 'Annex', occurrenceCount: 2 });
    expect(split.json.data.occurrences.updated.sort()).toEqual([occurrences[4].id, occurrences[5].id].sort());
    const [earlier] = await waitFor(tenant.organization.id, 'series.updated');
    expect(earlier.json.data.series).toMatchObject({ slug: input.slug, occurrenceCount: 4 });
    expect((await auditActions(tenant.key, 'series.created')).map((entry) => entry.summary.slug).sort()).toEqual([input.slug, newSlug].sort());
    expect((await auditActions(tenant.key, 'series.updated'))[0].summary).toMatchObject({ scope: 'FOLLOWING', from: occurrences[4].slug, newSlug });
  });

  test('deleteSeries with booked dates is 409 SERIES_HAS_BOOKINGS (how many) and deletes nothing; holds do not count', async () => {
    const tenant = await tenantWithEndpoint();
    const api = seriesApi(ctx.app.client, tenant.key, door);
    const input = seriesInput();
    await api.create(input);
    const occurrences = (await api.occurrences(input.slug as string)).data.events;
    expect((await book(tenant.key, occurrences[0].slug)).status).toBe(201);
    expect((await book(tenant.key, occurrences[3].slug)).status).toBe(201);
    const held = await book(tenant.key, occurrences[4].slug, true);
    expect(held.body.status).toBe('HELD');
    expectError(await api.delete(input.slug as string), door, 'SERIES_HAS_BOOKINGS', 409, { bookedOccurrences: 2 });
    expect((await api.get(input.slug as string)).data.occurrenceCount).toBe(6);
    expect((await eventApi(ctx.app.client, tenant.key, door).list({ series: input.slug as string })).data.total).toBe(6);
    expect(ofType(tenant.organization.id, 'series.deleted')).toEqual([]);
    expect(await auditActions(tenant.key, 'series.deleted')).toEqual([]);
  });
});

test('occurrences are events: bookings, holds, confirmation, check-in and the waiting list work on them unchanged', async () => {
  const tenant = await createTenant(ctx.app.orm);
  const api = seriesApi(ctx.app.client, tenant.key, 'rest');
  const input = seriesInput({ capacity: 2 });
  await api.create(input);
  const [occurrence] = (await api.occurrences(input.slug as string)).data.events;
  const client = ctx.app.client;
  expect((await client.rest('PUT', `/v1/events/${occurrence.slug}`, tenant.key, { status: 'PUBLISHED' })).status).toBe(200);
  const booking = await client.rest('POST', `/v1/events/${occurrence.slug}/bookings`, tenant.key, { quantity: 1, attendeeEmail: 'a@example.com', attendeeName: 'A' });
  expect(booking.body).toMatchObject({ status: 'CONFIRMED', eventSlug: occurrence.slug });
  const hold = await client.rest('POST', `/v1/events/${occurrence.slug}/bookings`, tenant.key, { quantity: 1, attendeeEmail: 'b@example.com', attendeeName: 'B', hold: true });
  expect(hold.body.status).toBe('HELD');
  expect((await client.rest('POST', `/v1/bookings/${hold.body.id}/confirm`, tenant.key)).body.status).toBe('CONFIRMED');
  expect((await client.rest('POST', `/v1/bookings/${booking.body.id}/check-in`, tenant.key)).body.checkedInAt).toEqual(expect.any(String));
  const soldOut = await client.rest('POST', `/v1/events/${occurrence.slug}/bookings`, tenant.key, { quantity: 1, attendeeEmail: 'c@example.com', attendeeName: 'C' });
  expect(soldOut.body.error.code).toBe('SOLD_OUT');
  const waiting = await client.rest('POST', `/v1/events/${occurrence.slug}/waitlist`, tenant.key, { quantity: 1, attendeeEmail: 'c@example.com', attendeeName: 'C' });
  expect(waiting.status).toBe(201);
  const read = await client.rest('GET', `/v1/events/${occurrence.slug}`, tenant.key);
  expect(read.body).toMatchObject({ registrationCount: 2, checkedInCount: 1, series: { slug: input.slug } });
  // The series' version follows its first booking (a plan depends on it); publishing did not detach it.
  expect((await api.get(input.slug as string)).data.version).toBe(2);
  expect(planOf(await api.preview(input.slug as string, { changes: { title: 'Renamed' } }))).toContain(`update ${occurrence.slug}`);
});

const planOf = (outcome: { data: any }) => outcome.data.update.map((entry: any) => `update ${entry.slug}`);
