import { createTenant, eventInput } from './helpers/factories';
import {
  DOORS,
  eventApi,
  expectValidationError,
  FULL_EVENT_FIELDS,
  ISO_UTC_MILLIS,
  LIST_ITEM_FIELDS,
  TICKET_TYPE_FIELDS,
} from './helpers/event-api';
import { insertEvents, storedEvent } from './helpers/event-rows';
import { useTestApp } from './helpers/use-test-app';

// D5: statuses, headers and shapes of every event response, through both doors.
const ctx = useTestApp();

function expectFullEvent(event: Record<string, unknown>, organizationId: string): void {
  expect(Object.keys(event).sort()).toEqual(FULL_EVENT_FIELDS);
  expect(event.id).toMatch(/^evt_[A-Za-z0-9]+$/);
  expect(event.organizationId).toBe(organizationId);
  expect(event.organizationId).toMatch(/^org_[A-Za-z0-9]+$/);
  for (const field of ['startDate', 'endDate', 'createdAt', 'updatedAt']) expect(event[field]).toMatch(ISO_UTC_MILLIS);
}

describe.each(DOORS)('responses through %s', (door) => {
  test('create returns the full event, absent optional fields null; REST answers 201 with Location', async () => {
    const { key, organization } = await createTenant(ctx.app.orm);
    const input = eventInput({ startDate: '2031-03-01T10:00:00+01:00', endDate: '2031-03-01T18:00:00+01:00' });
    const created = await eventApi(ctx.app.client, key, door).create(input);

    expect(created.error).toBeUndefined();
    expectFullEvent(created.data, organization.id);
    expect(created.data).toMatchObject({
      slug: input.slug,
      title: input.title,
      description: null,
      startDate: '2031-03-01T09:00:00.000Z',
      endDate: '2031-03-01T17:00:00.000Z',
      timezone: 'UTC',
      venue: null,
      venueAddress: null,
      coverImage: null,
      status: 'DRAFT',
      capacity: null,
      registrationCount: 0,
      ticketTypes: [],
    });
    if (door === 'rest') {
      expect(created.status).toBe(201);
      expect(created.headers.location).toBe(`/v1/events/${input.slug}`);
    }
    const row = await storedEvent(ctx.app.orm, { organizationId: organization.id, slug: input.slug as string });
    expect(row?.id).toBe(created.data.id);
    expect(row?.startDate.toISOString()).toBe('2031-03-01T09:00:00.000Z');
  });

  test('get returns 200 and the full event with ticket types', async () => {
    const { key, organization } = await createTenant(ctx.app.orm);
    const api = eventApi(ctx.app.client, key, door);
    const input = eventInput({ ticketTypes: [{ name: 'General', price: 25, currency: 'EUR', quantity: 100 }] });
    const created = await api.create(input);
    const read = await api.get(input.slug as string);

    expect(read.status).toBe(200);
    expectFullEvent(read.data, organization.id);
    expect(read.data).toEqual(created.data);
    expect(Object.keys(read.data.ticketTypes[0]).sort()).toEqual(TICKET_TYPE_FIELDS);
  });

  test('update returns 200 and the full event as stored', async () => {
    const { key, organization } = await createTenant(ctx.app.orm);
    const api = eventApi(ctx.app.client, key, door);
    const input = eventInput();
    await api.create(input);
    const updated = await api.update(input.slug as string, { title: 'Renamed', venue: 'Hall 1' });

    expect(updated.status).toBe(200);
    expectFullEvent(updated.data, organization.id);
    expect(updated.data).toMatchObject({ title: 'Renamed', venue: 'Hall 1', description: null });
    const row = await storedEvent(ctx.app.orm, { organizationId: organization.id, slug: input.slug as string });
    expect({ title: row?.title, venue: row?.venue }).toEqual({ title: 'Renamed', venue: 'Hall 1' });
  });

  test('delete removes the event; REST answers 204 with an empty body', async () => {
    const { key, organization } = await createTenant(ctx.app.orm);
    const api = eventApi(ctx.app.client, key, door);
    const input = eventInput();
    const created = await api.create(input);
    const deleted = await api.delete(input.slug as string);

    if (door === 'rest') {
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
    } else {
      expect(deleted.data).toEqual({ id: created.data.id, slug: input.slug });
    }
    expect(await storedEvent(ctx.app.orm, { organizationId: organization.id, slug: input.slug as string })).toBeNull();
  });

  test('list answers 200 with exactly the list fields, newest first, ties broken by id', async () => {
    const { key, organization } = await createTenant(ctx.app.orm);
    const tie = new Date('2026-01-01T00:00:00.000Z');
    const tied = await insertEvents(ctx.app.orm, organization.id, 3, { createdAt: tie });
    const newest = await insertEvents(ctx.app.orm, organization.id, 1, { createdAt: new Date('2026-02-01T00:00:00.000Z') });
    const oldest = await insertEvents(ctx.app.orm, organization.id, 1, { createdAt: new Date('2025-01-01T00:00:00.000Z') });

    const list = await eventApi(ctx.app.client, key, door).list();
    expect(list.status).toBe(200);
    expect(list.data).toMatchObject({ total: 5, page: 1, limit: 20 });
    for (const item of list.data.events) {
      expect(Object.keys(item).sort()).toEqual(LIST_ITEM_FIELDS);
      for (const field of ['startDate', 'endDate', 'createdAt', 'updatedAt']) expect(item[field]).toMatch(ISO_UTC_MILLIS);
    }
    const tiedIds = tied.map((event) => event.id).sort().reverse();
    expect(list.data.events.map((event: { id: string }) => event.id)).toEqual([newest[0].id, ...tiedIds, oldest[0].id]);
  });

  test('pages: a page past the end is empty with the true total; limit defaults to 20, allows 100, not 101', async () => {
    const { key, organization } = await createTenant(ctx.app.orm);
    const api = eventApi(ctx.app.client, key, door);
    const rows = await insertEvents(ctx.app.orm, organization.id, 105);
    const byNewest = rows.map((row) => row.id);

    const first = await api.list();
    expect(first.data.events).toHaveLength(20);
    expect(first.data.limit).toBe(20);
    const second = await api.list({ page: 2, limit: 50 });
    expect(second.data).toMatchObject({ total: 105, page: 2, limit: 50 });
    expect(second.data.events.map((event: { id: string }) => event.id)).toEqual(byNewest.slice(50, 100));
    const max = await api.list({ limit: 100 });
    expect(max.data.events).toHaveLength(100);
    const past = await api.list({ page: 3, limit: 100 });
    expect(past.data).toEqual({ events: [], total: 105, page: 3, limit: 100, nextCursor: null });
    expectValidationError(await api.list({ limit: 101 }), door, ['limit']);
  });

  test('REST and GraphQL return the same event', async () => {
    const { key } = await createTenant(ctx.app.orm);
    const input = eventInput({ description: '# Agenda\n\n* talks', venue: 'Main hall', capacity: 50 });
    await eventApi(ctx.app.client, key, door).create(input);
    const [rest, graphql] = await Promise.all(DOORS.map((other) => eventApi(ctx.app.client, key, other).get(input.slug as string)));
    expect(rest.data).toEqual(graphql.data);
  });
});
