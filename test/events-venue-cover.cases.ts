import { createTenant, eventInput } from './helpers/factories';
import { DOORS, eventApi, expectValidationError } from './helpers/event-api';
import { storedEvent } from './helpers/event-rows';
import { useTestApp } from './helpers/use-test-app';

// D16: venueAddress (≤ 500 characters) and coverImage (absolute https URL, ≤ 2,048) on create and PUT,
// through both doors; null on PUT clears them; invalid values are 400 on the field.
const ctx = useTestApp();

const COVER = 'https://images.example.com/launch/cover.jpg?w=1200';

describe.each(DOORS)('venueAddress and coverImage through %s', (door) => {
  let key: string;
  let organizationId: string;
  beforeAll(async () => {
    ({ key, organization: { id: organizationId } } = await createTenant(ctx.app.orm));
  });

  test('set on create, changed and cleared on PUT, and stored', async () => {
    const api = eventApi(ctx.app.client, key, door);
    const input = eventInput({ venueAddress: '1 Main Street, Springfield', coverImage: COVER });
    const slug = input.slug as string;
    const created = await api.create(input);
    expect(created.error).toBeUndefined();
    expect(created.data).toMatchObject({ venueAddress: '1 Main Street, Springfield', coverImage: COVER });

    const changed = await api.update(slug, { venueAddress: 'a'.repeat(500), coverImage: `https://x.example/${'p'.repeat(2048 - 18)}` });
    expect(changed.error).toBeUndefined();
    expect(changed.data.venueAddress).toHaveLength(500);
    expect(changed.data.coverImage).toHaveLength(2048);

    const kept = await api.update(slug, { title: 'Other title' });
    expect(kept.data.venueAddress).toHaveLength(500);

    const cleared = await api.update(slug, { venueAddress: null, coverImage: null });
    expect(cleared.data).toMatchObject({ venueAddress: null, coverImage: null });
    expect(await storedEvent(ctx.app.orm, { organizationId, slug })).toMatchObject({ venueAddress: null, coverImage: null });
    expect((await api.get(slug)).data).toMatchObject({ venueAddress: null, coverImage: null });
  });

  test.each([
    ['venueAddress over 500', { venueAddress: 'a'.repeat(501) }, ['venueAddress']],
    ['coverImage over 2,048', { coverImage: `https://x.example/${'p'.repeat(2048)}` }, ['coverImage']],
    ['coverImage over http', { coverImage: 'http://example.com/a.jpg' }, ['coverImage']],
    ['coverImage relative', { coverImage: '/a.jpg' }, ['coverImage']],
    ['coverImage not a URL', { coverImage: 'cover image' }, ['coverImage']],
    ['coverImage javascript:', { coverImage: 'javascript:alert(1)' }, ['coverImage']],
    ['both at once', { venueAddress: 'a'.repeat(501), coverImage: 'ftp://example.com/a.jpg' }, ['coverImage', 'venueAddress']],
  ])('invalid on create and PUT: %s', async (_name, fields, failing) => {
    const api = eventApi(ctx.app.client, key, door);
    const input = eventInput(fields);
    expectValidationError(await api.create(input), door, failing);
    expect(await storedEvent(ctx.app.orm, { organizationId, slug: input.slug as string })).toBeNull();
    const valid = eventInput();
    await api.create(valid);
    expectValidationError(await api.update(valid.slug as string, fields), door, failing);
  });
});

test('the OpenAPI document offers both fields on create and update, with their limits (D16)', async () => {
  const response = await ctx.app.client.request('GET', '/v1/openapi.json');
  const schemas = response.body.components.schemas;
  for (const input of ['CreateEventInput', 'UpdateEventInput']) {
    expect(schemas[input].properties.venueAddress.description).toMatch(/500 characters/);
    expect(schemas[input].properties.coverImage.description).toMatch(/absolute https URL.*at most 2,048 characters/);
  }
});
