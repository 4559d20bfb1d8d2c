import { createHash } from 'node:crypto';
import { KeyEnvironment } from '../src/modules/api-key/api-key.entity';
import { API_KEY_PATTERN, generateApiKey } from '../src/modules/api-key/api-key.format';
import { createApiKey, createOrganization } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';

// D9: keys are nk_live_/nk_test_ + 32 [A-Za-z0-9] from a cryptographic source, and only their SHA-256
// hash (plus a short display prefix) is stored.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

async function apiKeyRow(id: string): Promise<Record<string, unknown>> {
  const rows = await app.orm.em.fork().getConnection().execute<Array<Record<string, unknown>>>('select * from api_keys where id = ?', [id]);
  expect(rows).toHaveLength(1);
  return rows[0];
}

describe('format', () => {
  test.each([KeyEnvironment.LIVE, KeyEnvironment.TEST])('%s keys are nk_<env>_ + 32 alphanumerics, 40 characters', async (environment) => {
    const organization = await createOrganization(app.orm);
    const { key } = await createApiKey(app.orm, organization.id, { environment });
    expect(key).toHaveLength(40);
    expect(key).toMatch(new RegExp(`^nk_${environment}_[A-Za-z0-9]{32}$`));
    expect(key).toMatch(API_KEY_PATTERN);
  });

  test('keys are distinct and use the whole alphabet evenly (a cryptographic source, not a counter or clock)', () => {
    const keys = Array.from({ length: 5_000 }, () => generateApiKey(KeyEnvironment.TEST));
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(keys.map((key) => key.slice(8, 16))).size).toBe(keys.length);
    const counts = new Map<string, number>();
    for (const key of keys) for (const character of key.slice(8)) counts.set(character, (counts.get(character) ?? 0) + 1);
    // 160,000 characters over 62 symbols: about 2,580 each; a biased or narrow generator falls far outside.
    expect(counts.size).toBe(62);
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan(2_200);
      expect(count).toBeLessThan(3_000);
    }
  });

  test('keys created through the service are distinct too', async () => {
    const organization = await createOrganization(app.orm);
    const keys = await Promise.all(Array.from({ length: 25 }, () => createApiKey(app.orm, organization.id)));
    expect(new Set(keys.map(({ key }) => key)).size).toBe(25);
    expect(new Set(keys.map(({ id }) => id)).size).toBe(25);
  });
});

describe('storage', () => {
  test('the row holds the SHA-256 hex of the key and a short prefix; the key is in no column', async () => {
    const organization = await createOrganization(app.orm);
    const { id, key } = await createApiKey(app.orm, organization.id, { permissions: ['events:read'], name: 'storage check' });
    const row = await apiKeyRow(id);

    expect(row.key_hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(typeof row.prefix).toBe('string');
    expect(key.startsWith(row.prefix as string)).toBe(true);
    expect((row.prefix as string).length).toBeLessThanOrEqual(12);
    expect(row).toMatchObject({ name: 'storage check', environment: 'test', permissions: ['events:read'], revoked_at: null });

    const secret = key.slice(8);
    for (const [column, value] of Object.entries(row)) {
      const text = JSON.stringify(value instanceof Date ? value.toISOString() : value) ?? '';
      expect({ column, containsKey: text.includes(key) }).toEqual({ column, containsKey: false });
      // Not even the random part, or a large piece of it.
      expect({ column, containsSecret: text.includes(secret.slice(4)) }).toEqual({ column, containsSecret: false });
    }
  });

  test('no table anywhere in the database holds the key', async () => {
    const organization = await createOrganization(app.orm);
    const { key } = await createApiKey(app.orm, organization.id);
    const connection = app.orm.em.fork().getConnection();
    const tables = await connection.execute<Array<{ table_name: string }>>(
      "select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
    );
    for (const { table_name: table } of tables) {
      const rows = await connection.execute<Array<{ found: boolean }>>(
        `select exists (select 1 from "${table}" as t where t::text like ?) as found`,
        [`%${key.slice(8)}%`],
      );
      expect({ table, found: rows[0].found }).toEqual({ table, found: false });
    }
  });

  test('the key is accepted by its hash: changing the stored hash makes it unknown', async () => {
    const organization = await createOrganization(app.orm);
    const { id, key } = await createApiKey(app.orm, organization.id);
    expect((await app.client.rest('GET', '/v1/events', key)).status).toBe(200);
    await app.orm.em.fork().getConnection().execute("update api_keys set key_hash = repeat('0', 64) where id = ?", [id]);
    app.service.authenticator.invalidate([id]);
    const response = await app.client.rest('GET', '/v1/events', key);
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('INVALID_API_KEY');
  });
});
