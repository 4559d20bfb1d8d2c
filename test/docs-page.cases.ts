import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { REST_DOWNLOADS, REST_ROUTES } from '../src/doors/rest/routes';
import { useTestApp } from './helpers/use-test-app';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ctx = useTestApp();
let browser: Browser;
beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run .ci/install-chromium (apt-get install chromium)`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  ctx.beforeClose(() => browser.close());
}, 60_000);

test('GET /docs renders every /v1 route from /v1/openapi.json, from this server only', async () => {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  const origins = new Set<string>();
  page.on('request', (request) => void origins.add(new URL(request.url()).origin));
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => void pageErrors.push(error.message));

  const response = await page.goto(`${ctx.app.url}/docs`);
  expect(response?.status()).toBe(200);
  await page.locator('.opblock').first().waitFor({ timeout: 20_000 });
  await page.locator('.opblock').nth(REST_ROUTES.length + REST_DOWNLOADS.length - 1).waitFor({ timeout: 20_000 });

  const listed = await page.locator('.opblock-summary').evaluateAll((blocks) =>
    blocks.map((block) => {
      const method = block.querySelector('.opblock-summary-method')?.textContent?.trim();
      const path = block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? block.querySelector('.opblock-summary-path')?.textContent;
      return `${method} ${path?.replace(/\u200b/g, '').trim()}`;
    }),
  );
  const expected = [...REST_ROUTES, ...REST_DOWNLOADS].map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
  expect(listed.sort()).toEqual(expected.sort());
  await expect(page.locator('.title').first().textContent()).resolves.toContain('Event Service API');
  if (process.env.DOCS_SCREENSHOT) await page.screenshot({ path: process.env.DOCS_SCREENSHOT, fullPage: true });

  expect([...origins]).toEqual([ctx.app.url]);
  expect(pageErrors).toEqual([]);
  await context.close();
}, 60_000);
