import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { eventInput } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';

// Page code below runs in the browser (no DOM types in this project's tsconfig).
declare const document: { querySelectorAll(selector: string): Iterable<unknown>; querySelector(selector: string): { textContent: string | null } | null };

// GET /graphql in a browser: GraphiQL served by this server (GRAPHQL_EXPLORER=graphiql, the default
// outside production), working with every request to another origin blocked, as without internet.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ctx = useTestApp({}, { tenant: true });
let browser: Browser;
let title: string;
beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run .ci/install-chromium (apt-get install chromium)`);
  const input = eventInput({ title: `Explorer event ${Date.now()}` });
  title = input.title as string;
  expect((await ctx.app.client.rest('POST', '/v1/events', ctx.key, input)).status).toBe(201);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  ctx.beforeClose(() => browser.close());
}, 60_000);

test('GraphiQL loads with every non-local request blocked, its headers start with "Authorization: Bearer ", and a query with a key shows the data', async () => {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const blocked: string[] = [];
  await context.route('**/*', (route) => {
    if (new URL(route.request().url()).origin === ctx.app.url) return route.continue();
    blocked.push(route.request().url());
    return route.abort('internetdisconnected');
  });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => void pageErrors.push(error.message));

  const response = await page.goto(`${ctx.app.url}/graphql`);
  expect(response?.status()).toBe(200);
  await page.locator('.graphiql-container').waitFor({ timeout: 30_000 });
  await page.locator('.CodeMirror').first().waitFor({ timeout: 30_000 });

  // GraphiQL's editors are CodeMirror 5 instances (the element's CodeMirror property).
  const editorValues = () =>
    page.evaluate(() => [...document.querySelectorAll(".CodeMirror")].map((element) => (element as any).CodeMirror.getValue() as string));
  const headers = (await editorValues()).find((value) => value.includes('Authorization'));
  expect(headers && JSON.parse(headers)).toEqual({ Authorization: 'Bearer ' });

  await page.evaluate(
    ({ key }) => {
      for (const element of document.querySelectorAll('.CodeMirror')) {
        const editor = (element as any).CodeMirror;
        const value: string = editor.getValue();
        if (value.includes('Authorization')) editor.setValue(JSON.stringify({ Authorization: `Bearer ${key}` }, null, 2));
        else if (value.includes('events(limit: 5)')) editor.setValue('{ events { total events { slug title } } }');
      }
    },
    { key: ctx.key },
  );
  await page.locator('.graphiql-execute-button').click();
  await page.waitForFunction((expected) => document.querySelector('.result-window')?.textContent?.includes(expected), title, { timeout: 20_000 });
  const result = await page.locator('.result-window').textContent();
  expect(result).toContain('"total": 1');

  // The link to Apollo Sandbox names this endpoint, for those online.
  const sandbox = await page.locator('#sandbox').getAttribute('href');
  expect(sandbox).toBe(`https://studio.apollographql.com/sandbox/explorer?endpoint=${encodeURIComponent(`${ctx.app.url}/graphql`)}`);
  expect(blocked).toEqual([]);
  expect(pageErrors).toEqual([]);
  await context.close();
}, 90_000);
