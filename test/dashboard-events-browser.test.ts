import type { Browser, Page } from 'playwright-core';
import { CREATE_BOOKING, bookingInput } from './helpers/bookings';
import { createMemberWithPassword } from './helpers/dashboard';
import { capture, goTo, launchChromium, newPage, signInThroughPage } from './helpers/dashboard-browser';
import { createApiKey, createOrganization, eventInput } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';

// The dashboard's events pages (D19, D29) in headless Chromium: the list with its cursor pages and
// filters, an event's counts, ticket types and bookings with their actions, for an ADMIN and read only
// for a MEMBER, axe-core on each page at both widths.
const PASSWORD = 'a long enough password';
const DAY = 86_400_000;

jest.setTimeout(120_000);

let app: TestApp;
let browser: Browser;
beforeAll(async () => {
  app = await startTestApp({ USAGE_FLUSH_MS: '3600000' });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const go = (page: Page, hash: string, heading: string) => goTo(page, app.url, hash, heading);

/** yyyy-mm-dd of the day `offset` days from now, in this process's (and the browser's) time zone. */
function day(offset: number): string {
  const date = new Date(Date.now() + offset * DAY);
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}

function startingIn(days: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const start = new Date(Date.now() + days * DAY);
  start.setUTCSeconds(0, 0);
  return eventInput({ startDate: start.toISOString(), endDate: new Date(start.getTime() + 3 * 3_600_000).toISOString(), ...overrides });
}

interface Seeded {
  organizationId: string;
  key: string;
  admin: { email: string; name: string };
  member: { email: string; name: string };
  jazz: { slug: string; ticketTypes: Array<{ id: string; name: string }> };
  /** The bookings of the jazz night by attendee name. */
  bookings: Map<string, string>;
}

/**
 * An organization with 25 events: 22 talks, a published jazz night with two ticket types and 22
 * bookings (21 confirmed, the newest one held), a draft jazz brunch and a second jazz night.
 */
async function seed(name: string): Promise<Seeded> {
  const organization = await createOrganization(app.orm, { name });
  const admin = await createMemberWithPassword(app.orm, organization.id, 'admin', PASSWORD);
  const member = await createMemberWithPassword(app.orm, organization.id, 'member', PASSWORD);
  const { key } = await createApiKey(app.orm, organization.id);
  const create = async (body: Record<string, unknown>, publish: boolean) => {
    const created = await app.client.rest('POST', '/v1/events', key, body);
    if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
    if (!publish) return created.body;
    const published = await app.client.rest('PUT', `/v1/events/${created.body.slug}`, key, { status: 'PUBLISHED' });
    if (published.status !== 200) throw new Error(`publish: ${published.status} ${published.text}`);
    return published.body;
  };
  const tickets = [
    { name: 'Standing', price: 20, currency: 'EUR', quantity: 20 },
    { name: 'Seated', price: 35, currency: 'EUR', quantity: 12 },
  ];
  const jazz = await create(startingIn(60, { title: 'Jazz night', capacity: 40, venue: 'Blue Room', venueAddress: '1 Quay Street', timezone: 'Europe/Paris', ticketTypes: tickets }), true);
  await create(startingIn(10, { title: 'Jazz brunch' }), false);
  await create(startingIn(90, { title: 'Jazz night (second date)', capacity: 40, ticketTypes: tickets }), true);
  for (let index = 1; index <= 22; index += 1) await create(startingIn(30, { title: `Talk ${String(index).padStart(2, '0')}` }), index % 2 === 0);
  const bookings = new Map<string, string>();
  for (let index = 1; index <= 22; index += 1) {
    const attendeeName = index === 22 ? 'Holder Hal' : `Guest ${String(index).padStart(2, '0')}`;
    const ticketTypeId = jazz.ticketTypes[index % 2].id;
    const input = bookingInput(jazz.slug, { attendeeName, attendeeEmail: `guest${index}@example.com`, ticketTypeId, hold: index === 22 });
    const booked = await app.client.graphql(key, CREATE_BOOKING, { input });
    if (booked.body.errors) throw new Error(JSON.stringify(booked.body.errors));
    bookings.set(attendeeName, booked.body.data.createBooking.id);
  }
  return { organizationId: organization.id, key, admin, member, jazz, bookings };
}

async function bookingRow(id: string): Promise<{ status: string; checked_in_at: Date | null }> {
  const [row] = await app.orm.em.fork().getConnection().execute('select status, checked_in_at from bookings where id = ?', [id]);
  return row as { status: string; checked_in_at: Date | null };
}

test('events list: cursor pages, filters by title, status and start day, order; each event links to its page', async () => {
  const seeded = await seed('Listing Ltd');
  const { page, errors } = await newPage(browser);
  await signInThroughPage(page, app.url, seeded.admin.email, PASSWORD);
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Events' }).click();
  await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
  const table = page.getByRole('region', { name: 'Events', exact: true });
  await page.getByText('Page 1 of 2 · 25 events').waitFor();
  expect(await table.getByRole('row').count()).toBe(1 + 20);
  // Newest first: the last talk made leads.
  await table.getByRole('row').nth(1).getByRole('link', { name: 'Talk 22' }).waitFor();
  await capture(page, 'events');

  await page.getByRole('button', { name: 'Next page' }).click();
  await page.getByText('Page 2 of 2 · 25 events').waitFor();
  expect(await table.getByRole('row').count()).toBe(1 + 5);
  expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
  await table.getByRole('link', { name: 'Jazz night', exact: true }).waitFor();
  await page.getByRole('button', { name: 'Previous page' }).click();
  await page.getByText('Page 1 of 2 · 25 events').waitFor();
  expect(await page.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true);

  // Title contains (any case), then status, then the start day, then the order.
  await page.getByLabel('Title contains').fill('JAZZ');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('Page 1 of 1 · 3 events').waitFor();
  await page.getByLabel('Status').selectOption('DRAFT');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('Page 1 of 1 · 1 event').waitFor();
  await table.getByRole('link', { name: 'Jazz brunch' }).waitFor();
  await page.getByLabel('Status').selectOption('');
  await page.getByLabel('Starting from (day, your local time)').fill(day(55));
  await page.getByLabel('Starting until (day, included)').fill(day(65));
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('Page 1 of 1 · 1 event').waitFor();
  await table.getByRole('link', { name: 'Jazz night', exact: true }).waitFor();
  await page.getByLabel('Starting from (day, your local time)').fill('');
  await page.getByLabel('Starting until (day, included)').fill('');
  await page.getByLabel('Order').selectOption('START_DATE_ASC');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('Page 1 of 1 · 3 events').waitFor();
  const titles = await table.getByRole('link').allInnerTexts();
  expect(titles).toEqual(['Jazz brunch', 'Jazz night', 'Jazz night (second date)']);
  await page.getByLabel('Title contains').fill('no such event');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('No events match these filters.').waitFor();
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByText('Page 1 of 2 · 25 events').waitFor();
  expect(await page.getByLabel('Title contains').inputValue()).toBe('');

  // A link opens the event's page; the navigation marks Events as where we are.
  await table.getByRole('link', { name: 'Talk 21' }).click();
  await page.getByRole('heading', { level: 1, name: 'Talk 21' }).waitFor();
  expect(await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Events' }).getAttribute('aria-current')).toBe('true');
  await page.getByRole('link', { name: 'All events' }).click();
  await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();

  // An address naming no event of this organization says so.
  await go(page, 'events/no-such-event', 'Event');
  await page.getByRole('alert').getByText(/not found|no event/i).waitFor();
  expect(errors).toEqual([]);
});

test('event page: counts, ticket types, bookings in cursor pages with a status filter; an admin checks in and cancels', async () => {
  const seeded = await seed('Jazz Club');
  const { page, errors } = await newPage(browser);
  await signInThroughPage(page, app.url, seeded.admin.email, PASSWORD);
  await go(page, `events/${seeded.jazz.slug}`, 'Jazz night');
  const facts = page.locator('dl.facts');
  const fact = async (name: string) => (await facts.locator(`dt:text-is("${name}") + dd`).innerText()).trim();
  expect(await fact('Status')).toBe('PUBLISHED');
  expect(await fact('When')).toContain('(Europe/Paris)');
  expect(await fact('Venue')).toBe('Blue Room, 1 Quay Street');
  expect(await fact('Capacity')).toBe('40');
  expect(await fact('Booked (confirmed seats)')).toBe('21');
  expect(await fact('Held now')).toBe('1');
  expect(await fact('Free seats')).toBe('18');
  expect(await fact('Checked in (bookings)')).toBe('0');
  // Ticket types: Standing has the even guests (10 sold) and the hold, Seated the odd ones (11 sold).
  const types = page.getByRole('region', { name: 'Ticket types' });
  expect(await types.getByRole('row', { name: /Standing/ }).getByRole('cell').allInnerTexts()).toEqual(['Standing', expect.stringContaining('20'), '10', '1', '20', '9']);
  expect(await types.getByRole('row', { name: /Seated/ }).getByRole('cell').allInnerTexts()).toEqual(['Seated', expect.stringContaining('35'), '11', '0', '12', '1']);

  const bookings = page.getByRole('region', { name: 'Bookings', exact: true });
  await page.getByText('Page 1 of 2 · 22 bookings').waitFor();
  expect(await bookings.getByRole('row').count()).toBe(1 + 20);
  await bookings.getByRole('row').nth(1).getByRole('cell', { name: /^Holder Hal/ }).waitFor();
  await capture(page, 'event');
  await page.getByRole('button', { name: 'Next page' }).click();
  await page.getByText('Page 2 of 2 · 22 bookings').waitFor();
  expect(await bookings.getByRole('row').count()).toBe(1 + 2);
  await bookings.getByRole('cell', { name: /^Guest 01/ }).waitFor();
  await page.getByRole('button', { name: 'Previous page' }).click();
  await page.getByText('Page 1 of 2 · 22 bookings').waitFor();
  await page.getByLabel('Booking status').selectOption('HELD');
  await page.getByRole('button', { name: 'Show bookings' }).click();
  await page.getByText('Page 1 of 1 · 1 booking').waitFor();
  await bookings.getByRole('cell', { name: /^Holder Hal/ }).waitFor();
  await bookings.getByText(/^HELD until /).waitFor();
  // A hold cannot be checked in: its row offers only a cancel.
  expect(await page.getByRole('button', { name: 'Check in Holder Hal' }).count()).toBe(0);
  await page.getByRole('button', { name: 'Cancel the booking of Holder Hal' }).waitFor();
  await page.getByLabel('Booking status').selectOption('');
  await page.getByRole('button', { name: 'Show bookings' }).click();
  await page.getByText('Page 1 of 2 · 22 bookings').waitFor();

  // Check in: the booking is checked in, the count says so, the button is gone.
  await page.getByRole('button', { name: 'Check in Guest 21' }).click();
  await page.getByRole('status').getByText('Guest 21 checked in').waitFor();
  expect((await bookingRow(seeded.bookings.get('Guest 21')!)).checked_in_at).not.toBeNull();
  await facts.locator('dt:text-is("Checked in (bookings)") + dd').getByText('1', { exact: true }).waitFor();
  expect(await page.getByRole('button', { name: 'Check in Guest 21' }).count()).toBe(0);

  // Cancel, after a confirmation (dismissing it changes nothing); the seat is free again.
  await page.getByRole('button', { name: 'Cancel the booking of Guest 20' }).click();
  const dialog = page.getByRole('dialog', { name: 'Cancel the booking of Guest 20?' });
  await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  expect((await bookingRow(seeded.bookings.get('Guest 20')!)).status).toBe('CONFIRMED');
  await page.getByRole('button', { name: 'Cancel the booking of Guest 20' }).click();
  await dialog.getByRole('button', { name: 'Cancel booking' }).click();
  await page.getByRole('status').getByText('Booking of Guest 20 cancelled').waitFor();
  expect((await bookingRow(seeded.bookings.get('Guest 20')!)).status).toBe('CANCELLED');
  await facts.locator('dt:text-is("Free seats") + dd').getByText('19', { exact: true }).waitFor();
  await bookings.getByRole('row', { name: /Guest 20/ }).getByText(/^CANCELLED /).waitFor();
  expect(errors).toEqual([]);
});

test('a MEMBER reads the events pages with no action, and the server refuses the actions sent the page’s way', async () => {
  const seeded = await seed('Members Only');
  const { page, errors } = await newPage(browser);
  await signInThroughPage(page, app.url, seeded.member.email, PASSWORD);
  await go(page, 'events', 'Events');
  await page.getByText('Page 1 of 2 · 25 events').waitFor();
  await capture(page, 'member-events');
  await go(page, `events/${seeded.jazz.slug}`, 'Jazz night');
  await page.getByText('Page 1 of 2 · 22 bookings').waitFor();
  await page.getByText('only organization admins cancel, check in, transfer or exchange bookings').waitFor();
  expect(await page.getByRole('columnheader', { name: 'Actions' }).count()).toBe(0);
  for (const name of [/^Check in /, /^Cancel the booking/, /^Transfer /, /^Exchange /]) {
    expect({ name: String(name), count: await page.getByRole('button', { name }).count() }).toEqual({ name: String(name), count: 0 });
  }
  await capture(page, 'member-event');

  const guest = seeded.bookings.get('Guest 03')!;
  const answers = await page.evaluate(async (id) => {
    const session = (await (await fetch('/dashboard/api/session')).json()) as { csrfToken: string };
    const send = async (query: string) => {
      const response = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
        body: JSON.stringify({ query, variables: { id } }),
      });
      return (await response.json()) as { errors?: Array<{ extensions: { code: string; details: unknown } }> };
    };
    return [await send('mutation($id: ID!) { cancelBooking(id: $id) { id } }'), await send('mutation($id: ID!) { checkInBooking(id: $id) { id } }')];
  }, guest);
  expect(answers.map((answer) => answer.errors?.[0].extensions)).toEqual([
    expect.objectContaining({ code: 'FORBIDDEN', details: expect.objectContaining({ requiredPermission: 'bookings:write' }) }),
    expect.objectContaining({ code: 'FORBIDDEN', details: expect.objectContaining({ requiredPermission: 'checkin:write' }) }),
  ]);
  expect(await bookingRow(guest)).toEqual({ status: 'CONFIRMED', checked_in_at: null });
  expect(errors).toEqual([]);
});
