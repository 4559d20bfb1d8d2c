import { createTenant, eventInput, uniqueSlug } from './helpers/factories';
import { DOORS, eventApi, expectError, expectValidationError, type Door } from './helpers/event-api';
import { storedEvent, storedEventCount } from './helpers/event-rows';
import { useTestApp } from './helpers/use-test-app';

// D1: another organization's event answers exactly as a missing one; slugs are unique per organization.
const ctx = useTestApp();

describe.each(DOORS)('tenancy through %s', (door: Door) => {
  test("another organization's event is EVENT_NOT_FOUND for read, update and delete, and stays untouched", async () => {
    const owner = await createTenant(ctx.app.orm);
    const intruder = await createTenant(ctx.app.orm);
    const input = eventInput({ title: 'Private' });
    await eventApi(ctx.app.client, owner.key, door).create(input);
    const slug = input.slug as string;
    const api = eventApi(ctx.app.client, intruder.key, door);

    expectError(await api.get(slug), door, 'EVENT_NOT_FOUND', 404, { slug });
    expectError(await api.update(slug, { title: 'Hijacked', status: 'CANCELLED' }), door, 'EVENT_NOT_FOUND', 404, { slug });
    expectError(await api.delete(slug), door, 'EVENT_NOT_FOUND', 404, { slug });
    // Exactly as for a slug that exists nowhere.
    const missing = uniqueSlug('missing');
    const notFound = await api.get(missing);
    expectError(notFound, door, 'EVENT_NOT_FOUND', 404, { slug: missing });
    expect((await api.get(slug)).error?.message).toBe(notFound.error?.message.replace(missing, slug));

    const row = await storedEvent(ctx.app.orm, { organizationId: owner.organization.id, slug });
    expect({ title: row?.title, status: row?.storedStatus }).toEqual({ title: 'Private', status: 'DRAFT' });
  });

  test('list totals count only the own organization, with and without a filter', async () => {
    const mine = await createTenant(ctx.app.orm);
    const theirs = await createTenant(ctx.app.orm);
    const own = eventApi(ctx.app.client, mine.key, door);
    const other = eventApi(ctx.app.client, theirs.key, door);
    for (let n = 0; n < 2; n += 1) await own.create(eventInput());
    for (let n = 0; n < 3; n += 1) await other.create(eventInput());

    const list = await own.list();
    expect(list.data.total).toBe(2);
    expect(list.data.events).toHaveLength(2);
    expect((await own.list({ status: 'DRAFT' })).data.total).toBe(2);
    expect((await other.list({ status: 'DRAFT' })).data.total).toBe(3);
  });

  test('two organizations may own the same slug, each sees and changes only its own', async () => {
    const first = await createTenant(ctx.app.orm);
    const second = await createTenant(ctx.app.orm);
    const slug = uniqueSlug('launch');
    const a = await eventApi(ctx.app.client, first.key, door).create(eventInput({ slug, title: 'First' }));
    const b = await eventApi(ctx.app.client, second.key, door).create(eventInput({ slug, title: 'Second' }));
    expect(a.error).toBeUndefined();
    expect(b.error).toBeUndefined();
    expect(a.data.id).not.toBe(b.data.id);

    await eventApi(ctx.app.client, first.key, door).update(slug, { title: 'First, renamed' });
    expect((await eventApi(ctx.app.client, second.key, door).get(slug)).data.title).toBe('Second');
    expect((await storedEvent(ctx.app.orm, { organizationId: first.organization.id, slug }))?.title).toBe('First, renamed');
    expect((await storedEvent(ctx.app.orm, { organizationId: second.organization.id, slug }))?.title).toBe('Second');
  });

  test('a duplicate slug inside one organization is 400 on field slug, on create and on update', async () => {
    const tenant = await createTenant(ctx.app.orm);
    const api = eventApi(ctx.app.client, tenant.key, door);
    const taken = eventInput({ title: 'Taken' });
    const other = eventInput({ title: 'Other' });
    await api.create(taken);
    await api.create(other);

    expectValidationError(await api.create(eventInput({ slug: taken.slug, title: 'Copy' })), door, ['slug']);
    expect(await storedEventCount(ctx.app.orm, tenant.organization.id)).toBe(2);

    expectValidationError(await api.update(other.slug as string, { slug: taken.slug, title: 'Changed' }), door, ['slug']);
    const row = await storedEvent(ctx.app.orm, { organizationId: tenant.organization.id, slug: other.slug as string });
    expect(row?.title).toBe('Other');
  });
});

describe('GraphQL reports the same not-found as REST', () => {
  test('event, updateEvent and deleteEvent with a foreign slug give extensions.code EVENT_NOT_FOUND and null data', async () => {
    const owner = await createTenant(ctx.app.orm);
    const intruder = await createTenant(ctx.app.orm);
    const input = eventInput();
    await eventApi(ctx.app.client, owner.key, 'rest').create(input);
    const response = await ctx.app.client.graphql(
      intruder.key,
      'mutation($slug: String!) { deleteEvent(slug: $slug) { id } }',
      { slug: input.slug },
    );
    expect(response.body.data).toBeNull();
    expect(response.body.errors).toEqual([
      expect.objectContaining({ path: ['deleteEvent'], extensions: { code: 'EVENT_NOT_FOUND', details: { slug: input.slug } } }),
    ]);
    expect(await storedEvent(ctx.app.orm, { organizationId: owner.organization.id, slug: input.slug as string })).not.toBeNull();
  });
});
