import { createTenant, eventInput, uniqueSlug } from './helpers/factories';
import { eventApi, failingFields, type Door } from './helpers/event-api';
import { storedEventCount } from './helpers/event-rows';
import { useTestApp } from './helpers/use-test-app';

// D1: the unique index decides races on a slug; the losers get the same 400 as a plain duplicate.
const ctx = useTestApp();

const PARALLEL = 25;

test.each<[Door, number]>([
  ['rest', PARALLEL],
  ['graphql', 10],
])('%s: %i parallel creates of one slug give exactly one success and 400 slug for the rest', async (door, parallel) => {
  const { key, organization } = await createTenant(ctx.app.orm);
  const slug = uniqueSlug('race');
  const api = eventApi(ctx.app.client, key, door);
  const outcomes = await Promise.all(Array.from({ length: parallel }, (_, n) => api.create(eventInput({ slug, title: `Racer ${n}` }))));

  const winners = outcomes.filter((outcome) => outcome.error === undefined);
  const losers = outcomes.filter((outcome) => outcome.error !== undefined);
  expect(winners).toHaveLength(1);
  if (door === 'rest') expect(winners[0].status).toBe(201);
  for (const loser of losers) {
    expect(loser.error?.code).toBe('VALIDATION_ERROR');
    expect(failingFields(loser)).toEqual(['slug']);
    if (door === 'rest') expect(loser.status).toBe(400);
  }
  expect(outcomes.every((outcome) => outcome.status < 500)).toBe(true);
  expect(await storedEventCount(ctx.app.orm, organization.id, { slug })).toBe(1);
  expect(ctx.app.logs.filter((line) => /"level":50/.test(line))).toEqual([]);
});

test('two parallel updates renaming two events to one slug: one wins, the other is 400 slug', async () => {
  const { key, organization } = await createTenant(ctx.app.orm);
  const api = eventApi(ctx.app.client, key, 'rest');
  for (let round = 0; round < 5; round += 1) {
    const first = eventInput();
    const second = eventInput();
    await api.create(first);
    await api.create(second);
    const target = uniqueSlug('target');
    const outcomes = await Promise.all([
      api.update(first.slug as string, { slug: target }),
      api.update(second.slug as string, { slug: target }),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual([200, 400]);
    const loser = outcomes.find((outcome) => outcome.status === 400);
    expect(loser?.error?.code).toBe('VALIDATION_ERROR');
    expect(failingFields(loser!)).toEqual(['slug']);
    expect(await storedEventCount(ctx.app.orm, organization.id, { slug: target })).toBe(1);
    // The loser kept its own slug.
    expect(await storedEventCount(ctx.app.orm, organization.id, { slug: { $in: [first.slug, second.slug] } })).toBe(1);
  }
});

test('parallel updates, publishes and a delete of one event never fail with a 5xx; the delete wins in the end', async () => {
  const { key, organization } = await createTenant(ctx.app.orm);
  const api = eventApi(ctx.app.client, key, 'rest');
  const input = eventInput();
  await api.create(input);
  const slug = input.slug as string;
  const outcomes = await Promise.all([
    ...Array.from({ length: 8 }, (_, n) => api.update(slug, { title: `Title ${n}`, venue: `Venue ${n}` })),
    api.update(slug, { status: 'PUBLISHED' }),
    api.update(slug, { status: 'CANCELLED' }),
    api.delete(slug),
  ]);
  for (const outcome of outcomes) expect([200, 204, 400, 404]).toContain(outcome.status);
  // The one legitimate 400: the cancel landed before the publish (CANCELLED -> PUBLISHED is refused).
  const refused = outcomes.filter((outcome) => outcome.status === 400);
  expect(refused.length).toBeLessThanOrEqual(1);
  for (const outcome of refused) expect(failingFields(outcome)).toEqual(['status']);
  expect(outcomes.at(-1)?.status).toBe(204);
  expect(await storedEventCount(ctx.app.orm, organization.id, { slug })).toBe(0);
  expect(ctx.app.logs.filter((line) => /"level":50/.test(line))).toEqual([]);
});
