import { uniqueSlug } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';

const ctx = useTestApp({}, { tenant: true });

/** The access-log lines written so far, parsed. */
function accessLines(): Array<Record<string, any>> {
  return ctx.app.logs.map((line) => JSON.parse(line)).filter((line) => line.msg === 'request');
}

/** The access log is written when the response finishes, which can be a tick after the client has it. */
async function accessLineFor(requestId: string): Promise<Record<string, any>> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const line = accessLines().find((candidate) => candidate.requestId === requestId);
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no access log line for ${requestId}`);
}

test('GET /healthz answers without a key', async () => {
  const response = await ctx.app.client.request('GET', '/healthz');
  expect(response.status).toBe(200);
  expect(response.body).toEqual({ status: 'ok' });
});

test('GET /readyz checks the database, without a key', async () => {
  ctx.app.sql.reset();
  const response = await ctx.app.client.request('GET', '/readyz');
  expect(response.status).toBe(200);
  expect(response.body).toEqual({ status: 'ready', checks: { database: 'up' } });
  expect(ctx.app.sql.statements.some((statement) => /select 1/.test(statement))).toBe(true);
});

test('the access log has request id, organization, route pattern, operation, status and duration', async () => {
  const slug = uniqueSlug();
  const rest = await ctx.app.client.rest('GET', `/v1/events/${slug}`, ctx.key);
  expect(rest.status).toBe(404);
  const restLine = await accessLineFor(rest.headers['x-request-id'] as string);
  expect(restLine).toMatchObject({
    level: 30,
    method: 'GET',
    route: '/v1/events/:slug',
    operation: 'GetEvent',
    status: 404,
    organizationId: ctx.organizationId,
    url: `/v1/events/${slug}`,
  });
  expect(typeof restLine.durationMs).toBe('number');
  expect(typeof restLine.time).toBe('string');

  const graphql = await ctx.app.client.graphql(ctx.key, 'query CountEvents { events { total } }');
  expect(graphql.status).toBe(200);
  const graphqlLine = await accessLineFor(graphql.headers['x-request-id'] as string);
  expect(graphqlLine).toMatchObject({ method: 'POST', route: '/graphql', operation: 'CountEvents', status: 200, organizationId: ctx.organizationId });

  const unknown = await ctx.app.client.request('GET', '/nowhere/at/all');
  expect(await accessLineFor(unknown.headers['x-request-id'] as string)).toMatchObject({ route: 'unmatched', status: 404 });
});

test('logs never hold a key or an Authorization header', async () => {
  await ctx.app.client.rest('GET', '/v1/events', ctx.key);
  await ctx.app.client.graphql(ctx.key, '{ events { total } }');
  await ctx.app.client.rest('GET', '/v1/events', `${ctx.key}x`); // an invalid key: 401, still not logged
  const inUrl = await ctx.app.client.request('GET', `/v1/events?api_key=${ctx.key}&other=${ctx.key}`);
  expect(inUrl.status).toBe(401);
  await accessLineFor(inUrl.headers['x-request-id'] as string);
  const text = ctx.app.logs.join('\n');
  expect(text).not.toContain(ctx.key);
  expect(text).not.toContain(ctx.key.slice(8)); // the secret part on its own
  expect(text).not.toMatch(/bearer/i);
  expect(text).not.toMatch(/authorization/i);
  expect(accessLines().find((line) => line.url?.startsWith('/v1/events?api_key'))?.url).toBe('/v1/events?api_key=[REDACTED]&other=[REDACTED]');
});

test('GET /metrics: Prometheus counters and latency histograms by method, route pattern and status', async () => {
  const slug = uniqueSlug();
  await ctx.app.client.rest('GET', `/v1/events/${slug}`, ctx.key);
  await ctx.app.client.rest('GET', `/v1/events/${slug}`, ctx.key);
  await ctx.app.client.rest('GET', '/v1/events', ctx.key);
  const response = await ctx.app.client.request('GET', '/metrics');
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  const lines = response.text.split('\n');
  const count = (labels: string) => Number(lines.find((line) => line.startsWith(`http_requests_total{${labels}}`))?.split(' ')[1]);
  expect(count('method="GET",route="/v1/events/:slug",status="404"')).toBeGreaterThanOrEqual(2);
  expect(count('method="GET",route="/v1/events",status="200"')).toBeGreaterThanOrEqual(1);
  expect(response.text).toContain('http_request_duration_seconds_bucket{le="0.1",method="GET",route="/v1/events/:slug",status="404"}');
  expect(response.text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/v1\/events",status="200"\} \d+/);
  expect(response.text).toContain('process_cpu_user_seconds_total');
  expect(response.text).toContain('nodejs_eventloop_lag_seconds');
  // Labels are patterns, never raw paths.
  expect(response.text).not.toContain(slug);
});

describe('behind a proxy (TRUST_PROXY)', () => {
  const proxied = useTestApp({ TRUST_PROXY: 'true' });

  test('probes and scrapers reach /healthz, /readyz and /metrics directly; the API still wants X-Forwarded-Proto: https', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) expect((await proxied.app.client.request('GET', path)).status).toBe(200);
    const api = await proxied.app.client.request('GET', '/v1/events');
    expect(api.status).toBe(403);
    expect(api.body.error.code).toBe('HTTPS_REQUIRED');
  });
});
