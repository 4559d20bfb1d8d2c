import { createTenant, eventInput, uniqueSlug } from './helpers/factories';
import { DOORS, eventApi, expectError, expectValidationError, type Door, type EventApi } from './helpers/event-api';
import { moveIntoPast, storedEvent } from './helpers/event-rows';
import { useTestApp } from './helpers/use-test-app';
import { EventStatus } from '../src/modules/event/event-status';

// D3: create is DRAFT, the allowed status changes, COMPLETED derived from endDate, immutable fields.
const ctx = useTestApp();

type Status = 'DRAFT' | 'PUBLISHED' | 'CANCELLED' | 'COMPLETED';

/** An event in the given status (as clients see it), made through the API (and the DB for COMPLETED). */
async function eventIn(api: EventApi, status: Status, overrides: Record<string, unknown> = {}) {
  const input = eventInput(overrides);
  const created = await api.create(input);
  expect(created.error).toBeUndefined();
  const slug = input.slug as string;
  if (status === 'PUBLISHED' || status === 'COMPLETED') expect((await api.update(slug, { status: 'PUBLISHED' })).error).toBeUndefined();
  if (status === 'CANCELLED') expect((await api.update(slug, { status: 'CANCELLED' })).error).toBeUndefined();
  if (status === 'COMPLETED') await moveIntoPast(ctx.app.orm, created.data.id);
  return { slug, id: created.data.id as string, input };
}

const TRANSITIONS: Array<[Status, Status, boolean]> = [
  ['DRAFT', 'DRAFT', true],
  ['DRAFT', 'PUBLISHED', true],
  ['DRAFT', 'CANCELLED', true],
  ['PUBLISHED', 'PUBLISHED', true],
  ['PUBLISHED', 'DRAFT', true],
  ['PUBLISHED', 'CANCELLED', true],
  ['CANCELLED', 'CANCELLED', true],
  ['CANCELLED', 'DRAFT', true],
  ['CANCELLED', 'PUBLISHED', false],
  ['COMPLETED', 'CANCELLED', true],
  ['COMPLETED', 'DRAFT', true],
  ['COMPLETED', 'PUBLISHED', false],
];

describe.each(DOORS)('lifecycle through %s', (door: Door) => {
  let api: EventApi;
  let organizationId: string;
  beforeAll(async () => {
    const tenant = await createTenant(ctx.app.orm);
    api = eventApi(ctx.app.client, tenant.key, door);
    organizationId = tenant.organization.id;
  });
  const stored = (slug: string) => storedEvent(ctx.app.orm, { organizationId, slug });

  test.each(TRANSITIONS)('%s -> %s allowed: %s', async (from, to, allowed) => {
    const { slug } = await eventIn(api, from);
    const before = await stored(slug);
    const outcome = await api.update(slug, { status: to });
    if (allowed) {
      expect(outcome.error).toBeUndefined();
      expect(outcome.data.status).toBe(to);
      expect((await stored(slug))?.storedStatus).toBe(to);
    } else {
      expectValidationError(outcome, door, ['status']);
      expect((await stored(slug))?.storedStatus).toBe(before?.storedStatus);
    }
  });

  test.each(['COMPLETED', 'ARCHIVED', 'published', ''])('status %j cannot be set by update', async (status) => {
    const { slug } = await eventIn(api, 'DRAFT');
    expectValidationError(await api.update(slug, { status }), door, ['status']);
    expect((await stored(slug))?.storedStatus).toBe(EventStatus.DRAFT);
  });

  test('a PUBLISHED event whose endDate passed reads COMPLETED everywhere, and the filters agree', async () => {
    const tenant = await createTenant(ctx.app.orm);
    const own = eventApi(ctx.app.client, tenant.key, door);
    const completed = await eventIn(own, 'COMPLETED');
    const published = await eventIn(own, 'PUBLISHED');
    const pastDraft = await eventIn(own, 'DRAFT');
    await moveIntoPast(ctx.app.orm, pastDraft.id);

    expect((await own.get(completed.slug)).data.status).toBe('COMPLETED');
    expect((await own.get(pastDraft.slug)).data.status).toBe('DRAFT');
    const all = await own.list();
    const statusOf = (slug: string) => all.data.events.find((event: { slug: string }) => event.slug === slug)?.status;
    expect([statusOf(completed.slug), statusOf(published.slug), statusOf(pastDraft.slug)]).toEqual(['COMPLETED', 'PUBLISHED', 'DRAFT']);

    const slugsWith = async (status: Status) => (await own.list({ status })).data.events.map((event: { slug: string }) => event.slug);
    expect(await slugsWith('COMPLETED')).toEqual([completed.slug]);
    expect(await slugsWith('PUBLISHED')).toEqual([published.slug]);
    expect(await slugsWith('DRAFT')).toEqual([pastDraft.slug]);
    expect((await own.list({ status: 'COMPLETED' })).data.total).toBe(1);
    // Stored as PUBLISHED: COMPLETED is derived, never written.
    expect((await storedEvent(ctx.app.orm, { organizationId: tenant.organization.id, slug: completed.slug }))?.storedStatus).toBe('PUBLISHED');
  });

  describe.each(['PUBLISHED', 'COMPLETED'] as const)('while %s', (status) => {
    test.each<[{ slug?: string; startDate?: string }, string[]]>([
      [{ slug: 'renamed' }, ['slug']],
      [{ startDate: '2032-01-01T09:00:00Z' }, ['startDate']],
      [{ slug: 'renamed', startDate: '2032-01-01T09:00:00Z' }, ['slug', 'startDate']],
    ])('changing %j is 409 naming %j, and nothing of the request is applied', async (change, immutableFields) => {
      const { slug } = await eventIn(api, status, { title: 'Before', venue: 'Old hall' });
      const before = await stored(slug);
      const outcome = await api.update(slug, {
        ...change,
        ...(change.slug ? { slug: `${change.slug}-${uniqueSlug('x')}` } : {}),
        title: 'After',
        venue: 'New hall',
        endDate: '2032-01-02T09:00:00Z',
        status: 'DRAFT',
      });
      expectError(outcome, door, 'EVENT_ALREADY_PUBLISHED', 409, { immutableFields });
      const after = await stored(slug);
      expect(after).not.toBeNull();
      expect({ title: after?.title, venue: after?.venue, endDate: after?.endDate, status: after?.storedStatus }).toEqual({
        title: before?.title,
        venue: before?.venue,
        endDate: before?.endDate,
        status: before?.storedStatus,
      });
    });

    test('sending the stored slug and startDate (in another notation) is no change', async () => {
      const start = new Date(Date.now() + 40 * 24 * 3600 * 1000);
      start.setUTCHours(9, 0, 0, 0);
      const { slug } = await eventIn(api, status, {
        startDate: start.toISOString(),
        endDate: new Date(start.getTime() + 7200 * 1000).toISOString(),
      });
      const sameInstant = start.toISOString().replace('T09:00:00.000Z', 'T11:00:00+02:00');
      // A COMPLETED event's start lies in the past: sending it back unchanged is still accepted.
      const storedStart = (await stored(slug))?.startDate.toISOString();
      const changes = { slug, startDate: status === 'COMPLETED' ? storedStart : sameInstant, title: 'Renamed' };
      const outcome = await api.update(slug, changes);
      expect(outcome.error).toBeUndefined();
      expect(outcome.data).toMatchObject({ slug, title: 'Renamed', status });
      expect((await stored(slug))?.title).toBe('Renamed');
    });
  });

  test.each(['DRAFT', 'CANCELLED'] as const)('a %s event accepts every create field on update', async (status) => {
    const { slug } = await eventIn(api, status);
    const changes = {
      title: 'Everything changed',
      slug: uniqueSlug('moved'),
      description: '## New *agenda*',
      startDate: '2033-05-01T08:00:00+02:00',
      endDate: '2033-05-01T20:00:00+02:00',
      timezone: 'Asia/Tokyo',
      venue: 'Another venue',
      capacity: 250,
    };
    const outcome = await api.update(slug, changes);
    expect(outcome.error).toBeUndefined();
    expect(outcome.data).toMatchObject({
      ...changes,
      startDate: '2033-05-01T06:00:00.000Z',
      endDate: '2033-05-01T18:00:00.000Z',
      status,
    });
    expect(await stored(slug)).toBeNull();
    const row = await stored(changes.slug);
    expect({ title: row?.title, timezone: row?.timezone, capacity: row?.capacity, start: row?.startDate.toISOString() }).toEqual({
      title: changes.title,
      timezone: 'Asia/Tokyo',
      capacity: 250,
      start: '2033-05-01T06:00:00.000Z',
    });
    expectError(await api.get(slug), door, 'EVENT_NOT_FOUND', 404, { slug });
    expect((await api.get(changes.slug)).data.title).toBe(changes.title);
  });

  test('optional fields can be cleared with null on update', async () => {
    const { slug } = await eventIn(api, 'DRAFT', { description: 'text', venue: 'Hall', capacity: 5 });
    const outcome = await api.update(slug, { description: null, venue: null, capacity: null });
    expect(outcome.data).toMatchObject({ description: null, venue: null, capacity: null });
    const row = await stored(slug);
    expect([row?.description, row?.venue, row?.capacity]).toEqual([null, null, null]);
  });
});

test('a status in the REST create body is ignored: the event is DRAFT', async () => {
  const { key, organization } = await createTenant(ctx.app.orm);
  const input = eventInput({ status: 'PUBLISHED' });
  const created = await eventApi(ctx.app.client, key, 'rest').create(input);
  expect(created.status).toBe(201);
  expect(created.data.status).toBe('DRAFT');
  expect((await storedEvent(ctx.app.orm, { organizationId: organization.id, slug: input.slug as string }))?.storedStatus).toBe('DRAFT');
});
