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
  /** The second jazz night: published, the same two ticket types, no bookings. */
  second: { slug: string; ticketTypes: Array<{ id: string; name: string }> };
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
  const second = await create(startingIn(90, { title: 'Jazz night (second date)', capacity: 40, ticketTypes: tickets }), true);
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
  return { organizationId: organization.id, key, admin, member, jazz, second, bookings };
}

async function bookingRow(id: string): Promise<{ status: string; checked_in_at: Date | null }> {
  const [row] = await app.orm.em.fork().getConnection().execute('select status, checked_in_at from bookings where id = ?', [id]);
  return row as { status: string; checked_in_at: Date | null };
}

const TICKET_CODE = 'query($id: ID!) { booking(id: $id) { ticketCode } }';
const TRANSFER = 'mutation($id: ID!, $input: TransferBookingInput!) { transferBooking(id: $id, input: $input) { id } }';

async function codeOf(key: string, id: string): Promise<string> {
  const answer = await app.client.graphql(key, TICKET_CODE, { id });
  if (answer.body.errors) throw new Error(JSON.stringify(answer.body.errors));
  return answer.body.data.booking.ticketCode;
}

async function book(key: string, eventSlug: string, attendeeName: string, ticketTypeId?: string): Promise<string> {
  const input = bookingInput(eventSlug, { attendeeName, attendeeEmail: 'someone@example.com', ...(ticketTypeId ? { ticketTypeId } : {}) });
  const booked = await app.client.graphql(key, CREATE_BOOKING, { input });
  if (booked.body.errors) throw new Error(JSON.stringify(booked.body.errors));
  return booked.body.data.createBooking.id;
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

  // The same operations sent the page's way with the member's session: refused by the server (D19, D29).
  const guest = seeded.bookings.get('Guest 03')!;
  const code = await codeOf(seeded.key, guest);
  const answers = await page.evaluate(async ({ id, code, eventSlug }) => {
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
    ];
  }, { id: guest, code, eventSlug: seeded.jazz.slug });
  expect(answers.map((answer) => answer.errors?.[0].extensions)).toEqual(
    ['bookings:write', 'checkin:write', 'bookings:write', 'checkin:write'].map((permission) =>
      expect.objectContaining({ code: 'FORBIDDEN', details: expect.objectContaining({ requiredPermission: permission }) }),
    ),
  );
  expect(await codeOf(seeded.key, guest)).toBe(code);
  expect(await bookingRow(guest)).toEqual({ status: 'CONFIRMED', checked_in_at: null });
  expect(errors).toEqual([]);
});

test('ticket codes are read only on request; a transfer issues a new code; the transfer lock set on the settings page refuses inside the dialog', async () => {
  const seeded = await seed('Codes Ltd');
  const { page, errors } = await newPage(browser);
  const queries: string[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/graphql')) queries.push(String(request.postDataJSON()?.query ?? ''));
  });
  await signInThroughPage(page, app.url, seeded.admin.email, PASSWORD);
  await go(page, `events/${seeded.jazz.slug}`, 'Jazz night');
  await page.getByText('Page 1 of 2 · 22 bookings').waitFor();
  // Nothing on the page is a code, and no query so far asked for one.
  expect(await page.content()).not.toMatch(/tk_[A-Za-z0-9]/);
  expect(queries.filter((query) => query.includes('ticketCode'))).toEqual([]);

  const guest = seeded.bookings.get('Guest 05')!;
  const oldCode = await codeOf(seeded.key, guest);
  expect(oldCode).toMatch(/^tk_[A-Za-z0-9]{24}$/);
  await page.getByRole('button', { name: 'Show code of Guest 05' }).click();
  await page.getByRole('row', { name: /Guest 05/ }).getByText(oldCode, { exact: true }).waitFor();
  expect(queries.filter((query) => query.includes('ticketCode'))).toHaveLength(1);
  // The focus moves to the Hide button (described by the code); hiding brings the Show button back, focused.
  expect(await page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Hide code of Guest 05');
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Show code of Guest 05' }).waitFor();
  expect(await page.getByText(oldCode).count()).toBe(0);
  expect(await page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Show code of Guest 05');
  // A hold has no code to show.
  expect(await page.getByRole('button', { name: 'Show code of Holder Hal' }).count()).toBe(0);

  // Transfer: a dialog with the new attendee and a reason; the row shows the new attendee, the code is new.
  await page.getByRole('button', { name: 'Transfer the ticket of Guest 05' }).click();
  const dialog = page.getByRole('dialog', { name: 'Transfer the ticket of Guest 05' });
  await dialog.getByLabel('New attendee name').fill('Nina New');
  await dialog.getByLabel('New attendee email').fill('nina@example.com');
  await dialog.getByLabel('Reason (optional, kept in the audit log)').fill('Gave it to a friend');
  await capture(page, 'event-transfer');
  await dialog.getByRole('button', { name: 'Transfer ticket' }).click();
  await page.getByRole('status').getByText('Ticket of Guest 05 transferred to Nina New; it has a new code').waitFor();
  await page.getByRole('region', { name: 'Bookings', exact: true }).getByRole('cell', { name: /^Nina New nina@example\.com/ }).waitFor();
  const [stored] = await app.orm.em.fork().getConnection().execute('select attendee_name, attendee_email, status from bookings where id = ?', [guest]);
  expect(stored).toEqual({ attendee_name: 'Nina New', attendee_email: 'nina@example.com', status: 'CONFIRMED' });
  const newCode = await codeOf(seeded.key, guest);
  expect(newCode).not.toBe(oldCode);
  const [audited] = await app.orm.em.fork().getConnection().execute(`select actor_kind, summary from audit_log where action = 'booking.transferred' and target_id = ?`, [guest]);
  expect(audited.actor_kind).toBe('MEMBER');
  expect(JSON.stringify(audited.summary)).toContain('Gave it to a friend');

  // The lock (D29), set on the settings page: 0 by default, at most 10,080 (the browser holds 10,081 back).
  await go(page, 'settings', 'Organization settings');
  const lock = page.getByLabel('Transfer lock in minutes');
  expect(await lock.inputValue()).toBe('0');
  await lock.fill('10081');
  await page.getByRole('button', { name: 'Save settings' }).click();
  expect(await page.evaluate<boolean>("document.getElementById('settings-transfer-lock').validity.rangeOverflow")).toBe(true);
  await lock.fill('10080');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByRole('status').getByText('Settings saved').waitFor();
  const [settings] = await app.orm.em.fork().getConnection().execute('select transfer_lock_minutes from organizations where id = ?', [seeded.organizationId]);
  expect(settings).toEqual({ transfer_lock_minutes: 10_080 });
  await capture(page, 'settings-transfer-lock');

  // An event two days away is inside a week's lock: the refusal shows in the dialog, which stays open; nothing changes.
  const soon = await app.client.rest('POST', '/v1/events', seeded.key, startingIn(2, { title: 'Soon show' }));
  expect((await app.client.rest('PUT', `/v1/events/${soon.body.slug}`, seeded.key, { status: 'PUBLISHED' })).status).toBe(200);
  const sam = await book(seeded.key, soon.body.slug, 'Soon Sam');
  await go(page, `events/${soon.body.slug}`, 'Soon show');
  await page.getByRole('button', { name: 'Transfer the ticket of Soon Sam' }).click();
  const locked = page.getByRole('dialog', { name: 'Transfer the ticket of Soon Sam' });
  await locked.getByLabel('New attendee name').fill('Late Larry');
  await locked.getByLabel('New attendee email').fill('larry@example.com');
  await locked.getByRole('button', { name: 'Transfer ticket' }).click();
  await locked.getByRole('alert').getByText(/Transfers of this event's bookings stopped at /).waitFor();
  await locked.getByRole('button', { name: 'Cancel', exact: true }).click();
  await locked.waitFor({ state: 'detached' });
  const [unchanged] = await app.orm.em.fork().getConnection().execute('select attendee_name from bookings where id = ?', [sam]);
  expect(unchanged).toEqual({ attendee_name: 'Soon Sam' });
  expect(errors).toEqual([]);
});

test('door page: a code checks in once, then each refusal is said plainly; a MEMBER gets no scan field', async () => {
  const seeded = await seed('Door Co');
  const guest = seeded.bookings.get('Guest 07')!;
  const code = await codeOf(seeded.key, guest);
  const replaced = seeded.bookings.get('Guest 09')!;
  const replacedCode = await codeOf(seeded.key, replaced);
  const transferred = await app.client.graphql(seeded.key, TRANSFER, { id: replaced, input: { attendeeName: 'Other Otto', attendeeEmail: 'otto@example.com' } });
  expect(transferred.body.errors).toBeUndefined();
  const elsewhere = await codeOf(seeded.key, await book(seeded.key, seeded.second.slug, 'Second Sue', seeded.second.ticketTypes[0].id));

  const { page, errors } = await newPage(browser);
  await signInThroughPage(page, app.url, seeded.admin.email, PASSWORD);
  await go(page, `events/${seeded.jazz.slug}`, 'Jazz night');
  await page.getByRole('link', { name: 'Door check-in for Jazz night' }).click();
  await page.getByRole('heading', { level: 1, name: 'Door check-in: Jazz night' }).waitFor();
  // Ready to scan: the field has the focus.
  await page.waitForFunction("document.activeElement?.id === 'door-code'");
  await page.getByText('0 bookings checked in · 21 confirmed seats').waitFor();
  const result = page.getByRole('region', { name: 'Scan result' });
  const scan = async (text: string, verdict: string) => {
    await page.keyboard.type(text);
    await page.keyboard.press('Enter');
    await result.getByText(verdict).waitFor();
    // Ready for the next ticket: empty and focused.
    await page.waitForFunction("document.activeElement?.id === 'door-code' && document.activeElement.value === ''");
  };

  await scan(code, 'Checked in: let them in');
  await result.getByText('Guest 07').waitFor();
  await page.getByText('1 booking checked in · 21 confirmed seats').waitFor();
  expect((await bookingRow(guest)).checked_in_at).not.toBeNull();
  await capture(page, 'door');

  await scan(code, 'Already checked in: do not let in again');
  await result.getByText(/^This ticket was checked in at /).waitFor();
  await scan(replacedCode, 'Replaced ticket: do not let in');
  await result.getByText(/^This code was replaced at .* \(the ticket was transferred or exchanged\)/).waitFor();
  expect((await bookingRow(replaced)).checked_in_at).toBeNull();
  await scan(elsewhere, 'Wrong event: do not let in');
  await result.getByText(`This ticket is for Jazz night (second date) (${seeded.second.slug}).`).waitFor();
  await scan(`tk_${'Z'.repeat(24)}`, 'Unknown code: do not let in');
  await capture(page, 'door-refused');
  await page.getByText('1 booking checked in · 21 confirmed seats').waitFor();

  // A MEMBER: the counts and a note, no field to scan with.
  const member = await newPage(browser);
  await signInThroughPage(member.page, app.url, seeded.member.email, PASSWORD);
  await go(member.page, `events/${seeded.jazz.slug}/door`, 'Door check-in: Jazz night');
  await member.page.getByText('only organization admins check attendees in at the door').waitFor();
  expect(await member.page.getByLabel('Ticket code').count()).toBe(0);
  await capture(member.page, 'member-door');
  expect([...errors, ...member.errors]).toEqual([]);
});
