import { randomBytes } from 'node:crypto';
import { runCliInProcess } from './helpers/admin-cli';
import { createTestDatabase } from './helpers/database';
import { createTenant } from './helpers/factories';
import { spawnServer, type ServerProcess } from './helpers/server-process';
import { startTestApp } from './helpers/test-app';

// Two server processes (no state shared in memory); the admin CLI runs in this process.
jest.setTimeout(120_000);

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('two processes sharing Redis', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let servers: ServerProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    // A prefix of its own, so no other test run shares (or leaves behind) these counters.
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL,
      REDIS_KEY_PREFIX: `event-service-test-${randomBytes(6).toString('hex')}`,
      RATE_LIMIT_PER_MINUTE: '6',
      AUTH_FAILURES_PER_MINUTE: '4',
      SECRET_KEY: randomBytes(32).toString('base64'),
    };
    servers = await Promise.all([spawnServer(env), spawnServer(env)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database.drop();
  });

  test('/readyz and /metrics show the shared store up', async () => {
    const ready = await servers[0].client.request('GET', '/readyz');
    expect(ready.body.checks).toEqual({ database: 'up', rateLimitStore: 'up' });
    expect((await servers[0].client.request('GET', '/metrics')).text).toMatch(/^rate_limit_store_up 1$/m);
  });

  test('hold one organization budget between them', async () => {
    const organization = (await runCliInProcess(database.url, ['org', 'create', '--name', 'Shared budget'])).json;
    const { key } = (await runCliInProcess(database.url, ['key', 'create', '--org', organization.id, '--name', 'k', '--permissions', 'events:read'])).json;
    const remaining: number[] = [];
    for (let index = 0; index < 6; index += 1) {
      const response = await servers[index % 2].client.rest('GET', '/v1/events', key);
      expect(response.status).toBe(200);
      remaining.push(Number(response.headers['ratelimit-remaining']));
    }
    expect(remaining).toEqual([5, 4, 3, 2, 1, 0]);
    for (const server of servers) {
      const refused = await server.client.rest('GET', '/v1/events', key);
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  });

  test('hold one failed-authentication budget per address between them', async () => {
    const bad = 'nk_test_' + 'y'.repeat(32);
    const statuses: number[] = [];
    for (let index = 0; index < 5; index += 1) statuses.push((await servers[index % 2].client.rest('GET', '/v1/events', bad)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    expect((await servers[1].client.rest('GET', '/v1/events', bad)).status).toBe(429);
  });
});

test('with Redis unreachable the service keeps serving, limits each instance on its own and says so', async () => {
  const app = await startTestApp({ REDIS_URL: DEAD_REDIS_URL, RATE_LIMIT_PER_MINUTE: '3' });
  try {
    const { key } = await createTenant(app.orm);
    const statuses: number[] = [];
    for (let index = 0; index < 4; index += 1) statuses.push((await app.client.rest('GET', '/v1/events', key)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(app.logs.some((line) => line.includes('rate limit store (Redis) unavailable'))).toBe(true);
  } finally {
    await app.close();
  }
});

/** A port nothing listens on (connections refused at once). */
const DEAD_REDIS_URL = 'redis://127.0.0.1:1';

// D12: with Redis unreachable each instance counts on its own; N instances must not allow
// N times the budget. Each allows its share: the limit divided by the live instances PostgreSQL sees.
describe('two processes with Redis unreachable', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let servers: ServerProcess[] = [];
  const LIMIT = 10;

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: DEAD_REDIS_URL,
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
      // One secret for both (each has its own DATA_DIR).
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    };
    servers = await Promise.all([spawnServer(env), spawnServer(env)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database.drop();
  });

  test('together they allow about the limit, not twice it; /readyz stays ready and shows the outage; /metrics too', async () => {
    const organization = (await runCliInProcess(database.url, ['org', 'create', '--name', 'Redis down'])).json;
    const { key } = (await runCliInProcess(database.url, ['key', 'create', '--org', organization.id, '--name', 'k', '--permissions', 'events:read'])).json;
    const accepted = [0, 0];
    for (let index = 0; index < 3 * LIMIT; index += 1) {
      const response = await servers[index % 2].client.rest('GET', '/v1/events', key);
      expect([200, 429]).toContain(response.status);
      if (response.status === 200) accepted[index % 2] += 1;
      else expect(response.body.error.code).toBe('RATE_LIMITED');
    }
    // Each allows its share (5 of 10); the total is the limit (it was 20, 10 on each).
    expect(accepted).toEqual([LIMIT / 2, LIMIT / 2]);

    for (const server of servers) {
      const ready = await server.client.request('GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({
        status: 'ready',
        checks: { database: 'up', rateLimitStore: 'down' },
        details: { rateLimitStore: { state: 'down', since: expect.any(String), liveInstances: 2 } },
      });
      const metrics = await server.client.request('GET', '/metrics');
      expect(metrics.text).toMatch(/^rate_limit_store_up 0$/m);
      expect(metrics.text).toMatch(/^rate_limit_live_instances 2$/m);
      expect(Number(/^rate_limit_fallback_counts (\d+)$/m.exec(metrics.text)?.[1])).toBeGreaterThan(0);
    }
  });
});
