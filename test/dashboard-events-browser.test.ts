import type { Browser, Page } from 'playwright-core';
import { capture, goTo, launchChromium, newPage, signInThroughPage } from './helpers/dashboard-browser';
import { codeOf, day, PASSWORD, seedEvents, storedBooking } from './helpers/dashboard-events';
import { startTestApp, type TestApp } from './helpers/test-app';

// The dashboard's events pages (D19) in headless Chromium: the list with its cursor pages and filters,
// an event's counts, ticket types and bookings with check in and cancel for an ADMIN, read only for a
// MEMBER (whose page sends the same mutations and is refused), axe-core on each page at both widths.
// Codes, transfers, exchanges and the door: test/dashboard-tickets-browser.test.ts.
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
const seed = (name: string) => seedEvents(app, name);
const bookingRow = (id: string) => storedBooking(app, id);

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

  // The same operations sent the page's way with the member's session: refused by the server (D19, D29).
  const guest = seeded.bookings.get('Guest 03')!;
  const code = await codeOf(app, seeded.key, guest);
  const answers = await page.evaluate(async ({ id, code, eventSlug, target }) => {
    const session = (await (await fetch('/dashboard/api/session')).json()) as { csrfToken: string };
    const send = async (query: string, variables: Record<string, unknown>) => {
      const response = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
        body: JSON.stringify({ query, variables }),
      });
      return (await response.json()) as { errors?: Array<{ extensions: { code: string; details: unknown } }> };
    };
    return [
      await send('mutation($id: ID!) { cancelBooking(id: $id) { id } }', { id }),
      await send('mutation($id: ID!) { checkInBooking(id: $id) { id } }', { id }),
      await send('mutation($id: ID!) { transferBooking(id: $id, input: {attendeeName: "Mallory", attendeeEmail: "m@example.com"}) { id } }', { id }),
      await send('mutation($code: String!, $eventSlug: String!) { checkInByCode(code: $code, eventSlug: $eventSlug) { id } }', { code, eventSlug }),
      await send('mutation($id: ID!, $target: String!) { exchangeBooking(id: $id, input: {eventSlug: $target}) { id } }', { id, target }),
    ];
  }, { id: guest, code, eventSlug: seeded.jazz.slug, target: seeded.second.slug });
  expect(answers.map((answer) => answer.errors?.[0].extensions)).toEqual(
    ['bookings:write', 'checkin:write', 'bookings:write', 'checkin:write', 'bookings:write'].map((permission) =>
      expect.objectContaining({ code: 'FORBIDDEN', details: expect.objectContaining({ requiredPermission: permission }) }),
    ),
  );
  expect(await codeOf(app, seeded.key, guest)).toBe(code);
  expect(await bookingRow(guest)).toEqual({ status: 'CONFIRMED', checked_in_at: null });
  expect(errors).toEqual([]);
});
