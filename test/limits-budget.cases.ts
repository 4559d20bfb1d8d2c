import { runCliInProcess, within } from './helpers/admin-cli';
import { createApiKey, createOrganization, eventInput } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';

// The admin CLI runs in this process (runCliInProcess); test/cli-*.test.ts also run it as a Node process.
jest.setTimeout(120_000);

const ctx = useTestApp({ RATE_LIMIT_PER_MINUTE: '5' });

const QUERY = '{ events { total } }';

function rateHeaders(response: { headers: Record<string, unknown> }) {
  return {
    limit: Number(response.headers['ratelimit-limit']),
    remaining: Number(response.headers['ratelimit-remaining']),
    reset: Number(response.headers['ratelimit-reset']),
  };
}

test('two keys of one organization exhaust one budget together; another organization is unaffected', async () => {
  const organization = await createOrganization(ctx.app.orm);
  const first = await createApiKey(ctx.app.orm, organization.id);
  const second = await createApiKey(ctx.app.orm, organization.id);
  const bystander = await createApiKey(ctx.app.orm, (await createOrganization(ctx.app.orm)).id);

  const remaining: number[] = [];
  for (const key of [first.key, second.key, first.key, second.key, first.key]) {
    const response = await ctx.app.client.rest('GET', '/v1/events', key);
    expect(response.status).toBe(200);
    remaining.push(rateHeaders(response).remaining);
  }
  expect(remaining).toEqual([4, 3, 2, 1, 0]);

  for (const key of [second.key, first.key]) {
    const refused = await ctx.app.client.rest('GET', '/v1/events', key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    const { retryAfterSeconds } = refused.body.error.details;
    expect(Number.isInteger(retryAfterSeconds)).toBe(true);
    expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(refused.headers['retry-after']).toBe(String(retryAfterSeconds));
    expect(rateHeaders(refused)).toEqual({ limit: 5, remaining: 0, reset: retryAfterSeconds });
  }
  const graphqlRefused = await ctx.app.client.graphql(first.key, QUERY);
  expect(graphqlRefused.status).toBe(429);
  expect(graphqlRefused.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', details: { retryAfterSeconds: expect.any(Number) } });
  expect(graphqlRefused.headers['retry-after']).toBeDefined();

  const other = await ctx.app.client.rest('GET', '/v1/events', bystander.key);
  expect(other.status).toBe(200);
  expect(rateHeaders(other)).toMatchObject({ limit: 5, remaining: 4 });
});

test('GraphQL and REST draw on the same budget, and every authenticated response carries the headers', async () => {
  const organization = await createOrganization(ctx.app.orm);
  const { key } = await createApiKey(ctx.app.orm, organization.id, { permissions: ['events:read'] });
  const responses = [
    await ctx.app.client.graphql(key, QUERY),
    await ctx.app.client.rest('GET', '/v1/events', key),
    // Authenticated but refused for its permission, or not found: still counted, still with headers.
    await ctx.app.client.rest('POST', '/v1/events', key, eventInput()),
    await ctx.app.client.graphql(key, '{ event(slug: "missing") { id } }'),
  ];
  expect(responses.map((response) => response.status)).toEqual([200, 200, 403, 200]);
  expect(responses[3].body.errors[0].extensions.code).toBe('EVENT_NOT_FOUND');
  expect(responses.map((response) => rateHeaders(response))).toEqual([
    { limit: 5, remaining: 4, reset: expect.any(Number) },
    { limit: 5, remaining: 3, reset: expect.any(Number) },
    { limit: 5, remaining: 2, reset: expect.any(Number) },
    { limit: 5, remaining: 1, reset: expect.any(Number) },
  ]);
  for (const response of responses) {
    const { reset } = rateHeaders(response);
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
  }
  expect((await ctx.app.client.graphql(key, QUERY)).status).toBe(200);
  expect((await ctx.app.client.rest('GET', '/v1/events', key)).status).toBe(429);
  expect((await ctx.app.client.graphql(key, QUERY)).status).toBe(429);

  // Unauthenticated answers carry no budget.
  const anonymous = await ctx.app.client.rest('GET', '/v1/events', undefined);
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers['ratelimit-limit']).toBeUndefined();
});

test('`org update --rate-limit` overrides the default for that organization on the running server', async () => {
  const organization = await createOrganization(ctx.app.orm);
  const { key } = await createApiKey(ctx.app.orm, organization.id);
  expect(rateHeaders(await ctx.app.client.rest('GET', '/v1/events', key)).limit).toBe(5);

  const updated = await runCliInProcess(ctx.app.databaseUrl, ['org', 'update', organization.id, '--rate-limit', '8']);
  expect(updated.code).toBe(0);
  expect(updated.json.rateLimitPerMinute).toBe(8);
  expect(await within(1_000, async () => rateHeaders(await ctx.app.client.rest('GET', '/v1/events', key)).limit === 8)).toBeDefined();
  let response = await ctx.app.client.rest('GET', '/v1/events', key);
  while (response.status === 200) response = await ctx.app.client.rest('GET', '/v1/events', key);
  expect(response.status).toBe(429);
  expect(rateHeaders(response)).toMatchObject({ limit: 8, remaining: 0 });

  const reset = await runCliInProcess(ctx.app.databaseUrl, ['org', 'update', organization.id, '--rate-limit', 'default']);
  expect(reset.json.rateLimitPerMinute).toBeNull();
  const invalid = await runCliInProcess(ctx.app.databaseUrl, ['org', 'update', organization.id, '--rate-limit', 'many']);
  expect(invalid.code).not.toBe(0);
  expect(invalid.stderr).toContain('rate-limit: --rate-limit must be a whole number of at least 1');
  const tooBig = await runCliInProcess(ctx.app.databaseUrl, ['org', 'update', organization.id, '--rate-limit', '99999999999', '--timezone', 'Mars/Base']);
  expect(tooBig.code).not.toBe(0);
  expect(tooBig.stderr).toContain('rate-limit: --rate-limit must be at most 10000000');
  expect(tooBig.stderr).toContain('timezone: timezone must be an IANA time zone name');
  expect(tooBig.stdout).toBe('');
});
