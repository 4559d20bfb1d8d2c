import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

// Headless Chromium for the dashboard's pages (playwright-core, Debian's chromium). Screenshots of every
// page at 1280 and 390 px wide are kept in test-artifacts/dashboard/ (git-ignored) for review.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/dashboard');
const AXE = require.resolve('axe-core/axe.min.js');
const WIDTHS = [1280, 390] as const;

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run .ci/install-chromium (apt-get install chromium)`);
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** A page of its own (one browser context per person); `errors` collects uncaught errors of the page. */
export async function newPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  // bypassCSP lets the test inject axe-core; the pages themselves run under the server's CSP.
  const context = await browser.newContext({ ignoreHTTPSErrors: true, bypassCSP: true, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => void errors.push(error.message));
  return { page, errors };
}

/** axe-core in the page: no serious or critical violation. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const result = await (globalThis as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }> }> } }).axe.run();
    return result.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => ({ id: violation.id, nodes: violation.nodes.map((node) => node.target) }));
  });
  expect({ page: name, violations }).toEqual({ page: name, violations: [] });
}

/** Screenshots at both widths, and an accessibility check at each. */
export async function capture(page: Page, name: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
    await expectAccessible(page, `${name} at ${width} px`);
    // Nothing is wider than the screen except the tables, which scroll inside their own region.
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect({ page: name, width, overflow }).toEqual({ page: name, width, overflow: 0 });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** Opens a page by its address and waits for its heading. */
export async function goTo(page: Page, baseUrl: string, hash: string, heading: string): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/#/${hash}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** Signs in through the sign-in page; the dashboard opens on its first page. */
export async function signInThroughPage(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
}
