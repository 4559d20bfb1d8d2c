import { withAdminClient } from './helpers/database';
import { useTestApp } from './helpers/use-test-app';

const ctx = useTestApp({ METRICS_TOKEN: 'scrape-secret-123' });
let databaseName: string;
beforeAll(async () => {
  databaseName = new URL(ctx.app.databaseUrl).pathname.slice(1);
  // The app closes on a database that takes connections again, whatever a test left it in.
  ctx.beforeClose(() => setConnectionsAllowed(true));
});

/** Makes the app's database refuse (or accept again) connections, and cuts the open ones. */
async function setConnectionsAllowed(allowed: boolean): Promise<void> {
  await withAdminClient(async (client) => {
    await client.query(`alter database "${databaseName}" with allow_connections ${allowed ? 'true' : 'false'}`);
    if (!allowed) await client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [databaseName]);
  });
}

test('GET /readyz is 503 SERVICE_UNAVAILABLE while the database is unreachable, and ready again after', async () => {
  expect((await ctx.app.client.request('GET', '/readyz')).status).toBe(200);
  // The pool's driver reports the cut connections on the console: expected here, not worth showing.
  jest.spyOn(console, 'log').mockImplementation(() => undefined);
  await setConnectionsAllowed(false);
  const down = await ctx.app.client.request('GET', '/readyz');
  expect(down.status).toBe(503);
  expect(down.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { checks: { database: 'down' } } });
  expect(down.text).not.toMatch(/allow|terminat|postgres|select/i);
  const logged = ctx.app.logs.map((line) => JSON.parse(line));
  expect(logged.some((line) => line.level === 40 && /readiness check failed/.test(line.msg))).toBe(true);
  expect(logged.filter((line) => line.level >= 50)).toEqual([]);
  // The process itself is fine: liveness does not depend on the database.
  expect((await ctx.app.client.request('GET', '/healthz')).status).toBe(200);

  await setConnectionsAllowed(true);
  let status = 0;
  for (let attempt = 0; attempt < 20 && status !== 200; attempt += 1) {
    status = (await ctx.app.client.request('GET', '/readyz')).status;
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(status).toBe(200);
  jest.restoreAllMocks();
});

test('METRICS_TOKEN: /metrics wants it as a bearer token', async () => {
  const anonymous = await ctx.app.client.request('GET', '/metrics');
  expect(anonymous.status).toBe(401);
  expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
  const wrong = await ctx.app.client.request('GET', '/metrics', { headers: { authorization: 'Bearer scrape-secret-124' } });
  expect(wrong.status).toBe(401);
  const scraped = await ctx.app.client.request('GET', '/metrics', { headers: { authorization: 'Bearer scrape-secret-123' } });
  expect(scraped.status).toBe(200);
  expect(scraped.text).toContain('http_requests_total');
  expect(ctx.app.logs.join('\n')).not.toContain('scrape-secret');
});
