import type { Browser, Page } from 'playwright-core';
import { capture, goTo, launchChromium, newPage, signInThroughPage } from './helpers/dashboard-browser';
import { book, codeOf, PASSWORD, seedEvents, startingIn, storedBooking } from './helpers/dashboard-events';
import { startTestApp, type TestApp } from './helpers/test-app';

// The dashboard's ticket pages (D29) in headless Chromium: a code shown only on request, transfer and
// exchange in dialogs (refusals shown inside them), the transfer lock on the settings page, and the
// door page's answer to each scan; axe-core on each page at both widths.
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
const TRANSFER = 'mutation($id: ID!, $input: TransferBookingInput!) { transferBooking(id: $id, input: $input) { id } }';

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
  const oldCode = await codeOf(app, seeded.key, guest);
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
  const newCode = await codeOf(app, seeded.key, guest);
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
  const sam = await book(app, seeded.key, soon.body.slug, 'Soon Sam');
  await go(page, `events/${soon.body.slug}`, 'Soon show');
  await page.getByRole('button', { name: 'Transfer the ticket of Soon Sam' }).click();
  const locked = page.getByRole('dialog', { name: 'Transfer the ticket of Soon Sam' });
  await locked.getByLabel('New attendee name').fill('Late Larry');
  await locked.getByLabel('New attendee email').fill('larry@example.com');
  await locked.getByRole('button', { name: 'Transfer ticket' }).click();
  await locked.getByRole('alert').getByText(/this event's bookings stopped at \d{4}-/).waitFor();
  await locked.getByRole('button', { name: 'Cancel', exact: true }).click();
  await locked.waitFor({ state: 'detached' });
  const [unchanged] = await app.orm.em.fork().getConnection().execute('select attendee_name from bookings where id = ?', [sam]);
  expect(unchanged).toEqual({ attendee_name: 'Soon Sam' });
  expect(errors).toEqual([]);
});

test('door page: a code checks in once, then each refusal is said plainly; a MEMBER gets no scan field', async () => {
  const seeded = await seed('Door Co');
  const guest = seeded.bookings.get('Guest 07')!;
  const code = await codeOf(app, seeded.key, guest);
  const replaced = seeded.bookings.get('Guest 09')!;
  const replacedCode = await codeOf(app, seeded.key, replaced);
  const transferred = await app.client.graphql(seeded.key, TRANSFER, { id: replaced, input: { attendeeName: 'Other Otto', attendeeEmail: 'otto@example.com' } });
  expect(transferred.body.errors).toBeUndefined();
  const elsewhere = await codeOf(app, seeded.key, await book(app, seeded.key, seeded.second.slug, 'Second Sue', { ticketTypeId: seeded.second.ticketTypes[0].id }));

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

test('exchange: a booking moves to another event and ticket type in a dialog; a full target is refused inside it and nothing moves', async () => {
  const seeded = await seed('Exchange Hall');
  const full = await app.client.rest('POST', '/v1/events', seeded.key, startingIn(120, { title: 'Tiny gig', capacity: 1 }));
  expect((await app.client.rest('PUT', `/v1/events/${full.body.slug}`, seeded.key, { status: 'PUBLISHED' })).status).toBe(200);
  await book(app, seeded.key, full.body.slug, 'First Fay');
  const moving = seeded.bookings.get('Guest 04')!;
  const stay = seeded.bookings.get('Guest 06')!;
  const eventOf = async (id: string) =>
    ((await app.orm.em.fork().getConnection().execute('select e.slug from bookings b join events e on e.id = b.event_id where b.id = ?', [id]))[0] as { slug: string }).slug;

  const { page, errors } = await newPage(browser);
  await signInThroughPage(page, app.url, seeded.admin.email, PASSWORD);
  await go(page, `events/${seeded.jazz.slug}`, 'Jazz night');

  // A full target: SOLD_OUT in the dialog, which stays open; the booking stays.
  await page.getByRole('button', { name: 'Exchange the booking of Guest 06' }).click();
  const refused = page.getByRole('dialog', { name: 'Exchange the booking of Guest 06' });
  await refused.getByLabel('Move to event').selectOption({ label: await refused.getByRole('option', { name: /^Tiny gig/ }).innerText() });
  await refused.getByText('That event sells seats without ticket types: none to choose.').waitFor();
  await refused.getByRole('button', { name: 'Exchange booking' }).click();
  await refused.getByRole('alert').getByText(/sold out/i).waitFor();
  await refused.getByRole('button', { name: 'Cancel', exact: true }).click();
  await refused.waitFor({ state: 'detached' });
  expect(await eventOf(stay)).toBe(seeded.jazz.slug);

  // To the second date, Seated there: the ticket types load when the event is chosen, with their free tickets.
  await page.getByRole('button', { name: 'Exchange the booking of Guest 04' }).click();
  const dialog = page.getByRole('dialog', { name: 'Exchange the booking of Guest 04' });
  expect(await dialog.getByRole('option', { name: /^Jazz night ·/ }).count()).toBe(0);
  await dialog.getByLabel('Move to event').selectOption({ label: await dialog.getByRole('option', { name: /^Jazz night \(second date\)/ }).innerText() });
  await dialog.getByRole('option', { name: 'Seated (12 free)' }).waitFor({ state: 'attached' });
  await dialog.getByLabel('Ticket type there').selectOption({ label: 'Seated (12 free)' });
  await capture(page, 'event-exchange');
  await dialog.getByRole('button', { name: 'Exchange booking' }).click();
  await page.getByRole('status').getByText(/^Booking of Guest 04 moved to Jazz night \(second date\)/).waitFor();
  expect(await eventOf(moving)).toBe(seeded.second.slug);
  const facts = page.locator('dl.facts');
  await facts.locator('dt:text-is("Booked (confirmed seats)") + dd').getByText('20', { exact: true }).waitFor();
  expect(await page.getByRole('region', { name: 'Bookings', exact: true }).getByRole('cell', { name: /^Guest 04/ }).count()).toBe(0);
  const second = await app.client.rest('GET', `/v1/events/${seeded.second.slug}`, seeded.key);
  expect(second.body.registrationCount).toBe(1);
  expect(second.body.ticketTypes.find((type: { name: string }) => type.name === 'Seated').sold).toBe(1);
  expect(errors).toEqual([]);
});
