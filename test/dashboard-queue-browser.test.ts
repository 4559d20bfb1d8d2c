import type { Browser, Page } from 'playwright-core';
import { CREATE_BOOKING, bookingInput, createPublishedEvent } from './helpers/bookings';
import { createMemberWithPassword } from './helpers/dashboard';
import { capture, goTo, launchChromium, newPage, signInThroughPage } from './helpers/dashboard-browser';
import { PASSWORD } from './helpers/dashboard-events';
import { createApiKey, createOrganization } from './helpers/factories';
import { createQueuedEvent, join, openSale } from './helpers/queue';
import { startTestApp, type TestApp } from './helpers/test-app';

// The event page's on-sale queue panel (D30) in headless Chromium: the settings, the live figures read
// again while the page is open (and no more once it is left), the settings changed by an ADMIN through
// updateEvent; read only for a MEMBER, whose update the server refuses; axe-core at both widths.
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
const fact = (page: Page, list: string, name: string) => page.getByRole('definition').and(page.locator(`dl[aria-label="${list}"] dt:text-is("${name}") + dd`));
const figure = (page: Page, name: string) => fact(page, 'Queue now', name);
const setting = (page: Page, name: string) => fact(page, 'Queue settings', name);

async function seed(name: string) {
  const organization = await createOrganization(app.orm, { name });
  const admin = await createMemberWithPassword(app.orm, organization.id, 'admin', PASSWORD);
  const member = await createMemberWithPassword(app.orm, organization.id, 'member', PASSWORD);
  const { key } = await createApiKey(app.orm, organization.id);
  const queued = await createQueuedEvent(app.client, key, {}, { title: 'Stadium drop' });
  const plain = await createPublishedEvent(app.client, key, { title: 'Quiet talk', capacity: 30 });
  const entries: string[] = [];
  for (const person of ['ann', 'bob', 'cat']) {
    const joined = await join(app.client, key, queued.slug, person);
    if (joined.status !== 201) throw new Error(`join: ${joined.status} ${joined.text}`);
    entries.push(joined.body.id);
  }
  return { key, admin, member, queued, plain, entries };
}

test('the queue panel shows the settings and live figures, stops reading once the page is left, and an admin changes the settings', async () => {
  const seeded = await seed('Queue Arena');
  const { page, errors } = await newPage(browser);
  const statsReads: number[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/graphql') && String(request.postDataJSON()?.query ?? '').includes('queueStats')) statsReads.push(Date.now());
  });
  await signInThroughPage(page, app.url, seeded.admin.email, PASSWORD);
  await go(page, `events/${seeded.queued.slug}`, 'Stadium drop');
  await page.getByRole('heading', { level: 2, name: 'On-sale queue' }).waitFor();
  expect(await setting(page, 'Queue').innerText()).toBe('enabled: bookings go through the queue');
  expect(await setting(page, 'Opens (joining from)').innerText()).toBe('as soon as enabled');
  expect(await setting(page, 'On sale from').innerText()).toMatch(/\d{4}/);
  expect(await setting(page, 'Admissions a minute').innerText()).toBe('600');
  expect(await setting(page, 'An admission lasts').innerText()).toBe('10 min');
  expect(await setting(page, 'Seats per admission').innerText()).toBe('4');
  await figure(page, 'Waiting').getByText('3', { exact: true }).waitFor();
  for (const name of ['Admitted, may book now', 'Used (booked)', 'Admitted in the last minute']) expect(await figure(page, name).innerText()).toBe('0');
  await capture(page, 'event-queue');

  // Live: more join, the sale opens, everyone is admitted, one books; the page follows without a reload.
  for (const person of ['dan', 'eve']) expect((await join(app.client, seeded.key, seeded.queued.slug, person)).status).toBe(201);
  await figure(page, 'Waiting').getByText('5', { exact: true }).waitFor({ timeout: 10_000 });
  await openSale(app.client, seeded.key, seeded.queued.slug);
  await figure(page, 'Admitted, may book now').getByText('5', { exact: true }).waitFor({ timeout: 10_000 });
  expect(await figure(page, 'Waiting').innerText()).toBe('0');
  expect(await figure(page, 'Admitted in the last minute').innerText()).toBe('5');
  const input = bookingInput(seeded.queued.slug, { attendeeName: 'ann', attendeeEmail: 'ann@example.com', queueEntryId: seeded.entries[0] });
  const booked = await app.client.graphql(seeded.key, CREATE_BOOKING, { input });
  expect(booked.body.errors).toBeUndefined();
  await figure(page, 'Used (booked)').getByText('1', { exact: true }).waitFor({ timeout: 10_000 });
  expect(await figure(page, 'Admitted, may book now').innerText()).toBe('4');

  // Leaving the page stops the reads.
  await page.getByRole('link', { name: 'All events' }).click();
  await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
  const left = Date.now();
  // The page did read again while open (the count proves the listener sees the reads).
  expect(statsReads.filter((time) => time <= left).length).toBeGreaterThan(2);
  await page.waitForTimeout(5_000);
  expect(statsReads.filter((time) => time > left + 500)).toEqual([]);

  // Settings through updateEvent: only what changed is sent.
  await go(page, `events/${seeded.queued.slug}`, 'Stadium drop');
  await page.getByRole('button', { name: 'Change queue settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Queue settings of Stadium drop' });
  await capture(page, 'event-queue-dialog');
  await dialog.getByLabel('Admissions a minute (1 to 100,000)').fill('1200');
  await dialog.getByLabel('Seats per admission (1 to 20)').fill('2');
  await dialog.getByRole('button', { name: 'Save queue settings' }).click();
  await page.getByRole('status').getByText('Queue settings of Stadium drop saved').waitFor();
  expect(await setting(page, 'Admissions a minute').innerText()).toBe('1200');
  expect(await setting(page, 'Seats per admission').innerText()).toBe('2');
  const stored = await app.client.rest('GET', `/v1/events/${seeded.queued.slug}`, seeded.key);
  expect(stored.body.queue).toEqual(expect.objectContaining({ enabled: true, admitPerMinute: 1200, maxSeatsPerAdmission: 2, admissionMinutes: 10 }));

  // An event without a queue says so; an admin sets one up.
  await go(page, `events/${seeded.plain.slug}`, 'Quiet talk');
  await page.getByText('This event has no on-sale queue: bookings go straight through.').waitFor();
  await page.getByRole('button', { name: 'Set up a queue' }).click();
  const setUp = page.getByRole('dialog', { name: 'Queue settings of Quiet talk' });
  await setUp.getByLabel('Admissions a minute (1 to 100,000)').fill('100');
  await setUp.getByRole('button', { name: 'Save queue settings' }).click();
  await page.getByRole('status').getByText('Queue settings of Quiet talk saved').waitFor();
  expect(await setting(page, 'Queue').innerText()).toBe('enabled: bookings go through the queue');
  expect(await setting(page, 'Admissions a minute').innerText()).toBe('100');
  await figure(page, 'Waiting').getByText('0', { exact: true }).waitFor();
  expect(errors).toEqual([]);
});

test('a MEMBER sees the queue and its figures read only; the server refuses the update sent the page’s way', async () => {
  const seeded = await seed('Queue Members');
  const { page, errors } = await newPage(browser);
  await signInThroughPage(page, app.url, seeded.member.email, PASSWORD);
  await go(page, `events/${seeded.queued.slug}`, 'Stadium drop');
  await figure(page, 'Waiting').getByText('3', { exact: true }).waitFor();
  expect(await setting(page, 'Admissions a minute').innerText()).toBe('600');
  await page.getByText('only organization admins change the queue’s settings').waitFor();
  expect(await page.getByRole('button', { name: /queue/i }).count()).toBe(0);
  await capture(page, 'member-event-queue');
  const answer = await page.evaluate(async (slug) => {
    const session = (await (await fetch('/dashboard/api/session')).json()) as { csrfToken: string };
    const response = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
      body: JSON.stringify({ query: 'mutation($slug: String!) { updateEvent(slug: $slug, input: {queue: {enabled: false}}) { id } }', variables: { slug } }),
    });
    return (await response.json()) as { errors?: Array<{ extensions: { code: string; details: unknown } }> };
  }, seeded.queued.slug);
  expect(answer.errors?.[0].extensions).toEqual(expect.objectContaining({ code: 'FORBIDDEN', details: expect.objectContaining({ requiredPermission: 'events:write' }) }));
  const stored = await app.client.rest('GET', `/v1/events/${seeded.queued.slug}`, seeded.key);
  expect(stored.body.queue.enabled).toBe(true);
  expect(errors).toEqual([]);
});
