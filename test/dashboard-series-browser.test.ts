import type { Browser, Page } from 'playwright-core';
import { capture, goTo, launchChromium, newPage, signInThroughPage } from './helpers/dashboard-browser';
import { PASSWORD, seedSeries, YEAR, type SeededSeries } from './helpers/dashboard-series';
import { startTestApp, type TestApp } from './helpers/test-app';

// The dashboard's series pages (D28) in headless Chromium: the series list in cursor pages, a series'
// rule and its dates in the series' time zone (wall-clock time kept across clock changes) linking to
// their event pages, an occurrence's link back, the events list's series filter; the same read for a
// MEMBER; axe-core on each page at both widths.
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
const fact = async (page: Page, name: string) => (await page.locator(`dl.facts dt:text-is("${name}") + dd`).innerText()).trim();
/** 18:00 as the browser's locale writes a time (18:00 or 6:00 PM). */
const SIX_PM = /(18:00|6:00\sPM)$/;

/** The dates as the page should show them: each start in Berlin time, formatted by the browser. */
function inBerlin(page: Page, seeded: SeededSeries): Promise<string[]> {
  return page.evaluate(
    (starts) => starts.map((start) => new Date(start).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Europe/Berlin' })),
    seeded.dates.map((date) => date.startDate),
  );
}

test('series list in cursor pages; a series shows its rule and its dates in its time zone, each linking to its event, which links back; the events list filters by series', async () => {
  const seeded = await seedSeries(app, 'Series Studio');
  expect(seeded.yoga.occurrenceCount).toBe(35);
  // The dates cross both clock changes: their UTC hours differ, their Berlin time does not.
  expect(new Set(seeded.dates.map((date) => new Date(date.startDate).getUTCHours())).size).toBe(2);
  const { page, errors } = await newPage(browser);
  await signInThroughPage(page, app.url, seeded.admin.email, PASSWORD);
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Series' }).click();
  await page.getByRole('heading', { level: 1, name: 'Series' }).waitFor();
  const list = page.getByRole('region', { name: 'Series', exact: true });
  await page.getByText('Page 1 of 2 · 21 series').waitFor();
  expect(await list.getByRole('row').count()).toBe(1 + 20);
  // Newest first: the last walk made leads; a walk's row reads its rule, local first start, zone, duration, dates, version.
  const walk20 = list.getByRole('row').nth(1);
  await walk20.getByRole('link', { name: 'Walk 20' }).waitFor();
  const walkCells = await walk20.getByRole('cell').allInnerTexts();
  expect(walkCells[0]).toContain(seeded.walks[19].slug);
  expect(walkCells[1]).toBe('RRULE:FREQ=DAILY;COUNT=1');
  expect(walkCells[2]).toMatch(new RegExp(`${YEAR}[\\s\\S]*(9:30|09:30)[\\s\\S]*America/New_York`));
  expect(walkCells.slice(3)).toEqual(['45 min', '1', '1']);
  await capture(page, 'series-list');

  await page.getByRole('button', { name: 'Next page' }).click();
  await page.getByText('Page 2 of 2 · 21 series').waitFor();
  expect(await list.getByRole('row').count()).toBe(1 + 1);
  const yogaCells = await list.getByRole('row', { name: /Yoga/ }).getByRole('cell').allInnerTexts();
  expect(yogaCells[1].split('\n')).toEqual(['RRULE:FREQ=WEEKLY;COUNT=36', `EXDATE:${YEAR}0315T180000`]);
  expect(yogaCells.slice(3)).toEqual(['1 h 30 min', '35', String(seeded.yoga.version)]);
  expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);

  // The series: its rule and template, then its dates, 20 a page, in Berlin time.
  await list.getByRole('link', { name: 'Yoga' }).click();
  await page.getByRole('heading', { level: 1, name: 'Yoga' }).waitFor();
  await page.getByText('Page 1 of 2 · 35 dates').waitFor();
  expect(await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Series' }).getAttribute('aria-current')).toBe('true');
  expect((await fact(page, 'Rule')).split('\n')).toEqual(['RRULE:FREQ=WEEKLY;COUNT=36', `EXDATE:${YEAR}0315T180000`]);
  expect(await fact(page, 'Time zone')).toBe('Europe/Berlin');
  expect(await fact(page, 'First start (local)')).toMatch(new RegExp(`${YEAR}.*${SIX_PM.source}`));
  expect(await fact(page, 'Duration')).toBe('1 h 30 min');
  expect(await fact(page, 'Dates')).toBe('35');
  expect(await fact(page, 'Version')).toBe(String(seeded.yoga.version));
  expect(await fact(page, 'Venue')).toBe('Studio 2');
  expect(await fact(page, 'Capacity of each date')).toBe('20');
  expect(await fact(page, 'Ticket types of new dates')).toMatch(/^Drop-in \(.*12.*, 20\)$/);
  const expected = await inBerlin(page, seeded);
  expect(expected.every((text) => SIX_PM.test(text))).toBe(true);
  const dates = page.getByRole('region', { name: 'Dates', exact: true });
  expect(await dates.getByRole('row').count()).toBe(1 + 20);
  const dateLinks = async () => dates.getByRole('row').locator('td:first-child a').allInnerTexts();
  expect(await dateLinks()).toEqual(expected.slice(0, 20));
  // The first date: published, one seat booked; the others drafts with nothing booked.
  expect(await dates.getByRole('row').nth(1).getByRole('cell').allInnerTexts()).toEqual([
    expect.stringContaining(seeded.dates[0].slug),
    'Yoga',
    'PUBLISHED',
    '1 of 20 booked · 19 free',
    '0',
    '0',
  ]);
  expect((await dates.getByRole('row').nth(2).getByRole('cell').allInnerTexts()).slice(2)).toEqual(['DRAFT', '0 of 20 booked · 20 free', '0', '0']);
  await capture(page, 'series');
  await page.getByRole('button', { name: 'Next page' }).click();
  await page.getByText('Page 2 of 2 · 35 dates').waitFor();
  expect(await dateLinks()).toEqual(expected.slice(20));
  await page.getByRole('button', { name: 'Previous page' }).click();
  await page.getByText('Page 1 of 2 · 35 dates').waitFor();

  // A date opens its event page, which says which series it is part of and links back.
  await dates.getByRole('link', { name: expected[0], exact: true }).click();
  const back = page.getByRole('link', { name: `Part of series ${seeded.yoga.slug}` });
  await back.waitFor();
  await page.getByRole('heading', { level: 1, name: 'Yoga' }).waitFor();
  expect(page.url()).toContain(`#/events/${seeded.dates[0].slug}`);
  expect(await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Events' }).getAttribute('aria-current')).toBe('true');
  await back.click();
  await page.getByText('Page 1 of 2 · 35 dates').waitFor();

  // The events list filtered to the series, soonest first; then by another series' slug typed in.
  await page.getByRole('link', { name: 'Dates of Yoga in the events list' }).click();
  await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
  await page.getByText('Page 1 of 2 · 35 events').waitFor();
  expect(await page.getByLabel('Series (its slug)').inputValue()).toBe(seeded.yoga.slug);
  expect(await page.getByLabel('Order').inputValue()).toBe('START_DATE_ASC');
  const events = page.getByRole('region', { name: 'Events', exact: true });
  expect(await events.getByRole('row').locator('td:first-child code').allInnerTexts()).toEqual(seeded.dates.slice(0, 20).map((date) => date.slug));
  await page.getByLabel('Series (its slug)').fill(seeded.walks[2].slug);
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('Page 1 of 1 · 1 event').waitFor();
  await events.getByRole('link', { name: 'Walk 03' }).waitFor();
  await page.getByLabel('Series (its slug)').fill('no-such-series');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('No events match these filters.').waitFor();
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByText('Page 1 of 3 · 55 events').waitFor();
  expect(await page.getByLabel('Series (its slug)').inputValue()).toBe('');

  // An address naming no series of this organization says so.
  await go(page, 'series/no-such-series', 'Series');
  await page.getByRole('alert').getByText(/not found|no series/i).waitFor();
  expect(errors).toEqual([]);
});

test('a MEMBER reads the series pages as an admin does (events:read), and another organization’s series is not found', async () => {
  const seeded = await seedSeries(app, 'Series Members');
  const other = await seedSeries(app, 'Series Elsewhere');
  const { page, errors } = await newPage(browser);
  await signInThroughPage(page, app.url, seeded.member.email, PASSWORD);
  await go(page, 'series', 'Series');
  await page.getByText('Page 1 of 2 · 21 series').waitFor();
  await capture(page, 'member-series-list');
  await go(page, `series/${seeded.yoga.slug}`, 'Yoga');
  await page.getByText('Page 1 of 2 · 35 dates').waitFor();
  expect(await fact(page, 'Dates')).toBe('35');
  const expected = await inBerlin(page, seeded);
  const dates = page.getByRole('region', { name: 'Dates', exact: true });
  expect(await dates.getByRole('row').locator('td:first-child a').allInnerTexts()).toEqual(expected.slice(0, 20));
  await capture(page, 'member-series');
  await go(page, `events/${seeded.dates[1].slug}`, 'Yoga');
  await page.getByRole('link', { name: `Part of series ${seeded.yoga.slug}` }).waitFor();
  // Another organization's series (and its dates in the events filter) read as missing.
  await go(page, `series/${other.yoga.slug}`, 'Series');
  await page.getByRole('alert').getByText(/not found|no series/i).waitFor();
  await go(page, 'events', 'Events');
  await page.getByLabel('Series (its slug)').fill(other.yoga.slug);
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('No events match these filters.').waitFor();
  expect(errors).toEqual([]);
});
