import { createTenant } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';

// D12: failed authentications are counted per client address, for failing
// requests only; past AUTH_FAILURES_PER_MINUTE (the default, 100) a failed attempt answers 429, while
// a valid key from the same address is served (judged by its organization's budget only).
const ctx = useTestApp({ TRUST_PROXY: 'true' });

const LIMIT = 100;
const BAD = 'nk_live_' + 'x'.repeat(32);

function from(ip: string, key?: string) {
  return ctx.app.client.request('GET', '/v1/events', {
    headers: { 'x-forwarded-for': ip, 'x-forwarded-proto': 'https', ...(key ? { authorization: `Bearer ${key}` } : {}) },
  });
}

function graphqlFrom(ip: string, key: string) {
  return ctx.app.client.request('POST', '/graphql', {
    headers: { 'x-forwarded-for': ip, 'x-forwarded-proto': 'https', authorization: `Bearer ${key}` },
    json: { query: '{ events { total } }' },
  });
}

async function failures(ip: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let attempt = 0; attempt < count; attempt += 1) statuses.push((await from(ip, BAD)).status);
  return statuses;
}

test('past 100 bad keys an address gets 429 for failed attempts, until the window passes; its valid keys are still served, through both doors', async () => {
  const { key } = await createTenant(ctx.app.orm);
  expect(new Set(await failures('198.51.100.9', LIMIT))).toEqual(new Set([401]));

  const blocked = await from('198.51.100.9', BAD);
  expect(blocked.status).toBe(429);
  expect(blocked.body.error.code).toBe('RATE_LIMITED');
  const { retryAfterSeconds } = blocked.body.error.details;
  expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
  expect(retryAfterSeconds).toBeLessThanOrEqual(60);
  expect(blocked.headers['retry-after']).toBe(String(retryAfterSeconds));
  const blockedGraphql = await graphqlFrom('198.51.100.9', BAD);
  expect(blockedGraphql.status).toBe(429);
  expect(blockedGraphql.body.errors[0].extensions.code).toBe('RATE_LIMITED');

  // A valid key from the same address is served, through REST and GraphQL, again and again.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const served = await from('198.51.100.9', key);
    expect(served.status).toBe(200);
    expect(served.headers['ratelimit-limit']).toBeDefined();
    const graphql = await graphqlFrom('198.51.100.9', key);
    expect(graphql.status).toBe(200);
    expect(graphql.body.data.events.total).toBe(0);
  }
  // ... and failed attempts from there still get 429, with or without a key.
  expect((await from('198.51.100.9', BAD)).status).toBe(429);
  expect((await from('198.51.100.9')).status).toBe(429);

  // Other addresses are unaffected; successes do not count as failures.
  for (let attempt = 0; attempt < 5; attempt += 1) expect((await from('198.51.100.10', key)).status).toBe(200);
  expect((await from('198.51.100.10', BAD)).status).toBe(401);
});

test('missing and expired-looking credentials count as failures too; IPv4-mapped addresses share the IPv4 budget', async () => {
  const { key } = await createTenant(ctx.app.orm);
  for (let attempt = 0; attempt < LIMIT; attempt += 4) {
    expect((await from('203.0.113.1')).status).toBe(401);
    expect((await from('::ffff:203.0.113.1', 'Basic abc')).status).toBe(401);
    expect((await ctx.app.client.request('GET', '/v1/events?api_key=nk_test_abc', { headers: { 'x-forwarded-for': '203.0.113.1', 'x-forwarded-proto': 'https' } })).status).toBe(401);
    expect((await from('::ffff:203.0.113.1', BAD)).status).toBe(401);
  }
  expect((await from('203.0.113.1')).status).toBe(429);
  expect((await from('::ffff:203.0.113.1', key)).status).toBe(200);
});
