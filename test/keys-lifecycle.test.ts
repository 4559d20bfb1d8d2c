import { ApiKeyEntity } from '../src/modules/api-key/api-key.entity';
import { hashApiKey } from '../src/modules/api-key/api-key.format';
import { runCli, runCliInProcess, within } from './helpers/admin-cli';
import { createApiKey, createOrganization } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';

// The CLI runs in this process (runCliInProcess: the same runAdmin, output and exit code); the runs whose
// exit code and stderr are asserted are Node processes (runCli), as an operator starts them.
jest.setTimeout(60_000);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const LIST = '/v1/events';
const GRAPHQL_LIST = '{ events { total } }';

async function keyOf(organizationId: string, options: Parameters<typeof createApiKey>[2] = {}) {
  return createApiKey(app.orm, organizationId, options);
}

async function storedKey(id: string): Promise<ApiKeyEntity> {
  return app.orm.em.fork().findOneOrFail(ApiKeyEntity, { id });
}

test('a key created to expire in 2 s works, then answers API_KEY_EXPIRED through both doors', async () => {
  const organization = await createOrganization(app.orm);
  // Made in process: the CLI's own start-up would eat most of the two seconds.
  const { key } = await keyOf(organization.id, { permissions: ['events:read'], expiresAt: new Date(Date.now() + 2_000) });
  expect((await app.client.rest('GET', LIST, key)).status).toBe(200);
  expect((await app.client.graphql(key, GRAPHQL_LIST)).body.data.events.total).toBe(0);

  await new Promise((resolve) => setTimeout(resolve, 2_050));
  const rest = await app.client.rest('GET', LIST, key);
  expect(rest.status).toBe(401);
  expect(rest.body.error.code).toBe('API_KEY_EXPIRED');
  const graphql = await app.client.graphql(key, GRAPHQL_LIST);
  expect(graphql.status).toBe(401);
  expect(graphql.body.errors[0].extensions.code).toBe('API_KEY_EXPIRED');
});

test('key list shows every field but never a secret or its hash', async () => {
  const organization = await createOrganization(app.orm);
  const first = await keyOf(organization.id, { name: 'ci', permissions: ['events:read'] });
  const second = await keyOf(organization.id, { name: 'deploy', permissions: ['events:read', 'events:write'] });
  await runCliInProcess(app.databaseUrl, ['key', 'revoke', first.id]);

  const listed = await runCliInProcess(app.databaseUrl, ['key', 'list', '--org', organization.id]);
  expect(listed.code).toBe(0);
  expect(listed.json.organizationId).toBe(organization.id);
  expect(listed.json.keys.map((key: { id: string }) => key.id)).toEqual([second.id, first.id]);
  for (const key of listed.json.keys) {
    expect(Object.keys(key).sort()).toEqual(
      ['createdAt', 'environment', 'expiresAt', 'id', 'lastUsedAt', 'name', 'organizationId', 'permissions', 'prefix', 'revokedAt'].sort(),
    );
  }
  expect(listed.json.keys[1].revokedAt).not.toBeNull();
  expect(listed.json.keys[0]).toMatchObject({ name: 'deploy', environment: 'test', permissions: ['events:read', 'events:write'] });
  for (const secret of [first.key, second.key, hashApiKey(first.key), hashApiKey(second.key), first.key.slice(12)]) {
    expect(listed.stdout).not.toContain(secret);
  }
  const missing = await runCli(app.databaseUrl, ['key', 'list', '--org', 'org_nope']);
  expect(missing.code).not.toBe(0);
  expect(missing.stderr).toContain('NOT_FOUND');
});

test('a revoked key is refused within a second although lookups are cached', async () => {
  const organization = await createOrganization(app.orm);
  const { id, key } = await keyOf(organization.id);
  expect((await app.client.rest('GET', LIST, key)).status).toBe(200);
  app.sql.reset();
  expect((await app.client.rest('GET', LIST, key)).status).toBe(200);
  // The second request found the key in the cache: no lookup by hash.
  expect(app.sql.statements.filter((sql) => /from "api_keys"/.test(sql))).toEqual([]);

  const revoked = await runCliInProcess(app.databaseUrl, ['key', 'revoke', id]);
  expect(revoked.code).toBe(0);
  expect(revoked.json.revokedAt).not.toBeNull();
  const tookMs = await within(1_000, async () => (await app.client.rest('GET', LIST, key)).status === 401);
  expect(tookMs).toBeDefined();
  const rest = await app.client.rest('GET', LIST, key);
  expect(rest.body.error.code).toBe('INVALID_API_KEY');
  expect((await app.client.graphql(key, GRAPHQL_LIST)).body.errors[0].extensions.code).toBe('INVALID_API_KEY');
  expect((await storedKey(id)).revokedAt).toEqual(new Date(revoked.json.revokedAt));

  const again = await runCliInProcess(app.databaseUrl, ['key', 'revoke', id]);
  expect(again.json.revokedAt).toBe(revoked.json.revokedAt);
  expect((await runCliInProcess(app.databaseUrl, ['key', 'revoke', 'key_unknown'])).code).not.toBe(0);
});

test('rotate issues a like key; the old one works through the 24 h grace period, then expires', async () => {
  const organization = await createOrganization(app.orm);
  const old = await keyOf(organization.id, { name: 'billing', permissions: ['events:read'] });
  expect((await app.client.rest('GET', LIST, old.key)).status).toBe(200);

  const before = Date.now();
  const rotated = await runCliInProcess(app.databaseUrl, ['key', 'rotate', old.id]);
  expect(rotated.code).toBe(0);
  expect(rotated.json).toMatchObject({ name: 'billing', environment: 'test', permissions: ['events:read'], expiresAt: null });
  expect(rotated.json.key).toMatch(/^nk_test_[A-Za-z0-9]{32}$/);
  expect(rotated.json.previous.id).toBe(old.id);
  const graceEnd = new Date(rotated.json.previous.expiresAt).getTime();
  expect(graceEnd).toBeGreaterThanOrEqual(before + 24 * 3_600_000);
  expect(graceEnd).toBeLessThanOrEqual(Date.now() + 24 * 3_600_000);
  expect((await storedKey(old.id)).expiresAt?.getTime()).toBe(graceEnd);

  // During the grace period both keys work.
  expect((await app.client.rest('GET', LIST, rotated.json.key)).status).toBe(200);
  expect((await app.client.rest('GET', LIST, old.key)).status).toBe(200);

  // Rotating the new one with no grace ends it at once, on the running server too.
  const immediate = await runCliInProcess(app.databaseUrl, ['key', 'rotate', rotated.json.id, '--grace-hours', '0']);
  expect(immediate.code).toBe(0);
  expect(
    await within(1_000, async () => (await app.client.rest('GET', LIST, rotated.json.key)).body?.error?.code === 'API_KEY_EXPIRED'),
  ).toBeDefined();
  expect((await app.client.rest('GET', LIST, immediate.json.key)).status).toBe(200);

  // A revoked or expired key is not rotated, and a rotation keeps a lifetime: test/commands/access-commands.test.ts
  // (rotate), test/policies/api-key.policy.test.ts (assertRotatable, rotationDates).
  const badGrace = await runCli(app.databaseUrl, ['key', 'rotate', old.id, '--grace-hours', 'soon']);
  expect(badGrace.code).not.toBe(0);
  expect(badGrace.stderr).toContain('--grace-hours must be a whole number');
});

// Every command's --help: test/cli-help-arguments.test.ts (each command, both spellings).
