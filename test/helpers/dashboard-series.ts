import { createMemberWithPassword } from './dashboard';
import { book, PASSWORD } from './dashboard-events';
import { createApiKey, createOrganization } from './factories';
import type { TestApp } from './test-app';

// The organization the dashboard's series pages are tested on (test/dashboard-series-browser.test.ts),
// made through the API as a key would (D28).
export { PASSWORD };

export interface SeededSeries {
  key: string;
  admin: { email: string };
  member: { email: string };
  /** Yoga: Mondays at 18:00 in Berlin across the spring and autumn clock changes, with one date left out. */
  yoga: { slug: string; title: string; version: number; occurrenceCount: number; firstStart: string };
  /** Yoga's dates in order of their start (slug and UTC start). */
  dates: Array<{ slug: string; startDate: string }>;
  /** The one-date walks, oldest first. */
  walks: Array<{ slug: string; title: string }>;
}

/** Next year: a first start in the future (D28) whose dates cross both of Europe's clock changes. */
export const YEAR = new Date().getUTCFullYear() + 1;

async function createSeries(app: TestApp, key: string, body: Record<string, unknown>): Promise<any> {
  const created = await app.client.rest('POST', '/v1/series', key, body);
  if (created.status !== 201) throw new Error(`create series: ${created.status} ${created.text}`);
  return created.body;
}

/**
 * An organization with an ADMIN, a MEMBER, a key, the Yoga series (36 weekly dates from 1 March at
 * 18:00 Berlin time to November, the third one excluded: 35 dates; one booking on the first) and
 * then 20 series of one walk each, so the series list has two pages and Yoga is on the second.
 */
export async function seedSeries(app: TestApp, name: string): Promise<SeededSeries> {
  const organization = await createOrganization(app.orm, { name });
  const admin = await createMemberWithPassword(app.orm, organization.id, 'admin', PASSWORD);
  const member = await createMemberWithPassword(app.orm, organization.id, 'member', PASSWORD);
  const { key } = await createApiKey(app.orm, organization.id);
  const suffix = organization.id.slice(-6).toLowerCase().replace(/[^a-z0-9]/g, 'x');
  const yoga = await createSeries(app, key, {
    slug: `yoga-${suffix}`,
    title: 'Yoga',
    venue: 'Studio 2',
    timezone: 'Europe/Berlin',
    firstStart: `${YEAR}-03-01T18:00`,
    durationMinutes: 90,
    recurrence: ['RRULE:FREQ=WEEKLY;COUNT=36', `EXDATE:${YEAR}0315T180000`],
    capacity: 20,
    ticketTypes: [{ name: 'Drop-in', price: 12, currency: 'EUR', quantity: 20 }],
  });
  const listed = await app.client.rest('GET', `/v1/series/${yoga.slug}/occurrences?limit=100`, key);
  if (listed.status !== 200) throw new Error(`occurrences: ${listed.status} ${listed.text}`);
  const dates = (listed.body.events as Array<{ slug: string; startDate: string }>).map(({ slug, startDate }) => ({ slug, startDate }));
  const published = await app.client.rest('PUT', `/v1/events/${dates[0].slug}`, key, { status: 'PUBLISHED' });
  if (published.status !== 200) throw new Error(`publish: ${published.status} ${published.text}`);
  const ticketTypeId = published.body.ticketTypes[0].id;
  await book(app, key, dates[0].slug, 'Early Bird', { ticketTypeId, attendeeEmail: 'early@example.com' });
  // A booking changes what a plan depends on, so the version (D28) is read after it.
  const read = await app.client.rest('GET', `/v1/series/${yoga.slug}`, key);
  if (read.status !== 200) throw new Error(`series: ${read.status} ${read.text}`);
  const walks: SeededSeries['walks'] = [];
  for (let index = 1; index <= 20; index += 1) {
    const title = `Walk ${String(index).padStart(2, '0')}`;
    const walk = await createSeries(app, key, {
      slug: `walk-${index}-${suffix}`,
      title,
      timezone: 'America/New_York',
      firstStart: `${YEAR}-06-${String(index).padStart(2, '0')}T09:30`,
      durationMinutes: 45,
      recurrence: ['RRULE:FREQ=DAILY;COUNT=1'],
    });
    walks.push({ slug: walk.slug, title });
  }
  return {
    key,
    admin,
    member,
    yoga: { slug: yoga.slug, title: yoga.title, version: read.body.version, occurrenceCount: yoga.occurrenceCount, firstStart: yoga.firstStart },
    dates,
    walks,
  };
}
