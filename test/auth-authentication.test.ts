import { KeyEnvironment } from '../src/modules/api-key/api-key.entity';
import { createApiKey, createOrganization, createTenant, eventInput } from './helpers/factories';
import type { HttpResponse } from './helpers/https-client';
import { startTestApp, type TestApp } from './helpers/test-app';

// Spec section 5 and D9: the Authorization header is the only carrier, and every failure is a 401 with
// the right code, through REST and GraphQL alike.

let app: TestApp;
let key: string;
let keyId: string;
beforeAll(async () => {
  app = await startTestApp();
  ({ key, keyId } = await createTenant(app.orm));
});
afterAll(() => app.close());

const LIST_QUERY = '{ events { total } }';

function restWithHeader(authorization: string | undefined, path = '/v1/events'): Promise<HttpResponse> {
  return app.client.request('GET', path, { headers: authorization === undefined ? {} : { authorization } });
}

function graphqlWithHeader(authorization: string | undefined, path = '/graphql'): Promise<HttpResponse> {
  return app.client.request('POST', path, {
    headers: authorization === undefined ? {} : { authorization },
    json: { query: LIST_QUERY },
  });
}

/** The same failure through both doors: REST envelope and GraphQL extensions, status and code alike. */
async function expectBothDoors(authorization: string | undefined, status: number, code: string): Promise<void> {
  const rest = await restWithHeader(authorization);
  expect(rest.status).toBe(status);
  expect(rest.body).toEqual({ error: { code, message: expect.any(String) } });
  expect(rest.headers['x-request-id']).toEqual(expect.any(String));

  const graphql = await graphqlWithHeader(authorization);
  expect(graphql.status).toBe(status);
  expect(graphql.body.data).toBeUndefined();
  expect(graphql.body.errors).toEqual([{ message: rest.body.error.message, extensions: { code } }]);
  expect(graphql.headers['x-request-id']).toEqual(expect.any(String));
}

async function setKeyColumn(id: string, column: 'expires_at' | 'revoked_at', value: Date | null): Promise<void> {
  await app.orm.em.fork().getConnection().execute(`update api_keys set ${column} = ? where id = ?`, [value, id]);
  app.service.authenticator.invalidate();
}

describe('401 UNAUTHORIZED without a key', () => {
  test('no Authorization header', () => expectBothDoors(undefined, 401, 'UNAUTHORIZED'));
  test('an empty Authorization header counts as none', () => expectBothDoors('', 401, 'UNAUTHORIZED'));
  test('the message points at the Authorization header', async () => {
    const response = await restWithHeader(undefined);
    expect(response.body.error.message).toMatch(/Authorization header/);
  });
});

describe('401 INVALID_API_KEY', () => {
  const wellFormedUnknown = `nk_test_${'A'.repeat(32)}`;
  test.each([
    ['scheme only', 'Bearer'],
    ['wrong scheme (Basic)', () => `Basic ${key}`],
    ['wrong scheme (Token)', () => `Token ${key}`],
    ['no scheme', () => key],
    ['two tokens', () => `Bearer ${key} ${key}`],
    ['too short', () => `Bearer ${key.slice(0, 39)}`],
    ['too long', () => `Bearer ${key}A`],
    ['unknown environment', () => `Bearer nk_prod_${key.slice(8)}`],
    ['non-alphanumeric body', () => `Bearer ${key.slice(0, 39)}-`],
    ['upper-case prefix', () => `Bearer ${key.replace('nk_test_', 'NK_TEST_')}`],
    ['well formed but unknown', `Bearer ${wellFormedUnknown}`],
  ])('%s', (_label, header) => expectBothDoors(typeof header === 'function' ? header() : header, 401, 'INVALID_API_KEY'));

  test('a revoked key (revoked_at set)', async () => {
    const { id, key: revoked } = await createApiKey(app.orm, (await createOrganization(app.orm)).id);
    expect((await restWithHeader(`Bearer ${revoked}`)).status).toBe(200);
    await setKeyColumn(id, 'revoked_at', new Date());
    await expectBothDoors(`Bearer ${revoked}`, 401, 'INVALID_API_KEY');
  });

  test('a revocation takes effect within a second even without invalidating the cache', async () => {
    const { id, key: revoked } = await createApiKey(app.orm, (await createOrganization(app.orm)).id);
    expect((await restWithHeader(`Bearer ${revoked}`)).status).toBe(200);
    await app.orm.em.fork().getConnection().execute('update api_keys set revoked_at = now() where id = ?', [id]);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await restWithHeader(`Bearer ${revoked}`)).body.error.code).toBe('INVALID_API_KEY');
  });
});

describe('401 API_KEY_EXPIRED', () => {
  test('a key whose expires_at has passed', async () => {
    const { id, key: expiring } = await createApiKey(app.orm, (await createOrganization(app.orm)).id, {
      expiresAt: new Date(Date.now() + 3600_000),
    });
    expect((await restWithHeader(`Bearer ${expiring}`)).status).toBe(200);
    await setKeyColumn(id, 'expires_at', new Date(Date.now() - 1_000));
    await expectBothDoors(`Bearer ${expiring}`, 401, 'API_KEY_EXPIRED');
  });

  test('a key stops working when its expiry passes, even while it is cached', async () => {
    const { key: shortLived } = await createApiKey(app.orm, (await createOrganization(app.orm)).id, {
      expiresAt: new Date(Date.now() + 1_500),
    });
    expect((await restWithHeader(`Bearer ${shortLived}`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    const response = await restWithHeader(`Bearer ${shortLived}`);
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('API_KEY_EXPIRED');
  });

  test('a key that is revoked and expired is reported as invalid (revocation wins)', async () => {
    const { id, key: both } = await createApiKey(app.orm, (await createOrganization(app.orm)).id);
    await setKeyColumn(id, 'expires_at', new Date(Date.now() - 1_000));
    await setKeyColumn(id, 'revoked_at', new Date());
    await expectBothDoors(`Bearer ${both}`, 401, 'INVALID_API_KEY');
  });
});

describe('the Bearer scheme', () => {
  test.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('"%s" is accepted through both doors', async (scheme) => {
    const rest = await restWithHeader(`${scheme} ${key}`);
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ events: [], total: 0 });
    const graphql = await graphqlWithHeader(`${scheme} ${key}`);
    expect(graphql.status).toBe(200);
    expect(graphql.body).toEqual({ data: { events: { total: 0 } } });
  });
});

describe('a key in the URL is never accepted', () => {
  test.each(['api_key', 'apiKey', 'key', 'token', 'access_token', 'authorization', 'anything'])(
    'a valid key in ?%s= is 401 UNAUTHORIZED pointing at the header, through both doors',
    async (parameter) => {
      const rest = await restWithHeader(undefined, `/v1/events?${parameter}=${key}`);
      expect(rest.status).toBe(401);
      expect(rest.body.error.code).toBe('UNAUTHORIZED');
      expect(rest.body.error.message).toMatch(/Authorization header/);
      const graphql = await graphqlWithHeader(undefined, `/graphql?${parameter}=${key}`);
      expect(graphql.status).toBe(401);
      expect(graphql.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
      const graphqlGet = await app.client.request('GET', `/graphql?query=${encodeURIComponent(LIST_QUERY)}&${parameter}=${key}`, {
        headers: { accept: 'application/json' },
      });
      expect(graphqlGet.status).toBe(401);
      expect(graphqlGet.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
    },
  );

  test('a key in the path of an unknown route is not accepted either', async () => {
    const response = await restWithHeader(undefined, `/v1/events/${key}`);
    expect(response.status).toBe(401);
  });

  test('neither the key nor the Authorization header ever reaches the logs', async () => {
    const { key: secret } = await createTenant(app.orm);
    await restWithHeader(`Bearer ${secret}`);
    await restWithHeader(undefined, `/v1/events?api_key=${secret}`);
    await restWithHeader(undefined, `/v1/events?note=${secret}`);
    await restWithHeader(undefined, `/v1/events/${secret}`);
    const encoded = secret.replace(/_/g, '%5F').replace('n', '%6E');
    await restWithHeader(undefined, `/v1/events?note=${encoded}`);
    await restWithHeader(undefined, `/v1/events/${encoded}`);
    await restWithHeader(undefined, `/v1/events?${encoded}=1`);
    await restWithHeader(`Bearer ${secret}`, `/v1/nothing-here?key=${secret}`);
    await graphqlWithHeader(`Bearer ${secret}`, `/graphql?token=${secret}`);
    await graphqlWithHeader(`Bearer ${secret}`);
    await app.client.rest('POST', '/v1/events', secret, eventInput({ description: 'plain' }));
    // The access log is written when the response finishes; give the last line a moment.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const logs = app.logs.join('\n');
    expect(logs).toContain('/v1/events?api_key=[REDACTED]');
    expect(logs).not.toContain(secret);
    expect(logs).not.toContain(secret.slice(8));
    expect(logs).not.toMatch(/bearer/i);
    expect(logs).not.toMatch(/"authorization"\s*:\s*"(?!\[REDACTED\])/i);
  });
});

describe('environments', () => {
  test('nk_test_ and nk_live_ keys of one organization reach the same data', async () => {
    const organization = await createOrganization(app.orm);
    const test = await createApiKey(app.orm, organization.id, { environment: KeyEnvironment.TEST });
    const live = await createApiKey(app.orm, organization.id, { environment: KeyEnvironment.LIVE });
    expect(test.key).toMatch(/^nk_test_/);
    expect(live.key).toMatch(/^nk_live_/);

    const input = eventInput();
    expect((await app.client.rest('POST', '/v1/events', test.key, input)).status).toBe(201);
    const fromLive = await app.client.rest('GET', `/v1/events/${input.slug}`, live.key);
    expect(fromLive.status).toBe(200);
    const listedWithTest = await app.client.rest('GET', '/v1/events', test.key);
    const listedWithLive = await app.client.rest('GET', '/v1/events', live.key);
    expect(listedWithLive.body).toEqual(listedWithTest.body);
    expect(listedWithLive.body.total).toBe(1);
    const graphql = await app.client.graphql(live.key, 'query($slug: String!) { event(slug: $slug) { id } }', { slug: input.slug });
    expect(graphql.body.data.event.id).toBe(fromLive.body.id);
  });
});

test('the authenticated key is the one in the header, not another organization', async () => {
  const other = await createTenant(app.orm);
  const input = eventInput();
  await app.client.rest('POST', '/v1/events', other.key, input);
  expect((await restWithHeader(`Bearer ${key}`)).body.total).toBe(0);
  expect(keyId).not.toBe(other.keyId);
});
