import { createTenant } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ AUTH_FAILURES_PER_MINUTE: '3', TRUST_PROXY: 'true' });
});
afterAll(() => app.close());

function from(ip: string, key?: string) {
  return app.client.request('GET', '/v1/events', {
    headers: { 'x-forwarded-for': ip, 'x-forwarded-proto': 'https', ...(key ? { authorization: `Bearer ${key}` } : {}) },
  });
}

test('failed authentications are limited per client address, then 429 until the window passes', async () => {
  const { key } = await createTenant(app.orm);
  const bad = 'nk_live_' + 'x'.repeat(32);
  const statuses = [];
  for (let attempt = 0; attempt < 3; attempt += 1) statuses.push((await from('198.51.100.9', bad)).status);
  expect(statuses).toEqual([401, 401, 401]);

  const blocked = await from('198.51.100.9', bad);
  expect(blocked.status).toBe(429);
  expect(blocked.body.error.code).toBe('RATE_LIMITED');
  const { retryAfterSeconds } = blocked.body.error.details;
  expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
  expect(retryAfterSeconds).toBeLessThanOrEqual(60);
  expect(blocked.headers['retry-after']).toBe(String(retryAfterSeconds));
  // The address is refused even with a valid key, through GraphQL as well.
  expect((await from('198.51.100.9', key)).status).toBe(429);
  const graphql = await app.client.request('POST', '/graphql', {
    headers: { 'x-forwarded-for': '198.51.100.9', 'x-forwarded-proto': 'https', authorization: `Bearer ${key}` },
    json: { query: '{ events { total } }' },
  });
  expect(graphql.status).toBe(429);
  expect(graphql.body.errors[0].extensions.code).toBe('RATE_LIMITED');

  // Other addresses are unaffected; successes do not count as failures.
  for (let attempt = 0; attempt < 5; attempt += 1) expect((await from('198.51.100.10', key)).status).toBe(200);
  expect((await from('198.51.100.10', bad)).status).toBe(401);
});

test('missing and expired-looking credentials count as failures too; IPv4-mapped addresses share the IPv4 budget', async () => {
  expect((await from('203.0.113.1')).status).toBe(401);
  expect((await from('::ffff:203.0.113.1', 'Basic abc')).status).toBe(401);
  expect((await app.client.request('GET', '/v1/events?api_key=nk_test_abc', { headers: { 'x-forwarded-for': '203.0.113.1', 'x-forwarded-proto': 'https' } })).status).toBe(401);
  expect((await from('203.0.113.1')).status).toBe(429);
});
