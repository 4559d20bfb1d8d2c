import { OrganizationEntity, OrganizationPlan } from '../src/modules/organization/organization.entity';
import { runCliInProcess, within } from './helpers/admin-cli';
import { createApiKey, createOrganization } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';

// The admin CLI runs in this process (runCliInProcess); test/cli-*.test.ts also run it as a Node process.
jest.setTimeout(120_000);

let proxied: TestApp;
let direct: TestApp;
beforeAll(async () => {
  [proxied, direct] = await Promise.all([startTestApp({ TRUST_PROXY: 'true' }), startTestApp()]);
});
afterAll(() => Promise.all([proxied.close(), direct.close()]));

async function restrictedTenant(app: TestApp, allowedIps: string) {
  const organization = await createOrganization(app.orm, { plan: OrganizationPlan.ENTERPRISE });
  const { key } = await createApiKey(app.orm, organization.id);
  const updated = await runCliInProcess(app.databaseUrl, ['org', 'update', organization.id, '--allowed-ips', allowedIps, '--restriction-mode', 'strict']);
  expect(updated.code).toBe(0);
  return { organization, key, view: updated.json };
}

function viaProxy(ip: string, key: string) {
  return proxied.client.request('GET', '/v1/events', {
    headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': ip, 'x-forwarded-proto': 'https' },
  });
}

test('STRICT refuses addresses outside every range with 403 IP_NOT_ALLOWED and details.ip; inside passes', async () => {
  const { key, view } = await restrictedTenant(proxied, '203.0.113.0/24, 198.51.100.7,2001:DB8:ABCD::/48');
  expect(view).toMatchObject({ plan: 'ENTERPRISE', restrictionMode: 'STRICT', allowedIPs: ['203.0.113.0/24', '198.51.100.7', '2001:db8:abcd::/48'] });

  for (const inside of ['203.0.113.1', '203.0.113.254', '198.51.100.7', '2001:db8:abcd:12::5', '::ffff:203.0.113.9']) {
    const response = await viaProxy(inside, key);
    expect({ inside, status: response.status }).toEqual({ inside, status: 200 });
  }
  for (const [outside, reported] of [
    ['203.0.114.1', '203.0.114.1'],
    ['198.51.100.8', '198.51.100.8'],
    ['2001:db8:abce::1', '2001:db8:abce::1'],
    ['::ffff:10.0.0.1', '10.0.0.1'],
  ]) {
    const response = await viaProxy(outside, key);
    expect(response.status).toBe(403);
    expect(response.body.error).toMatchObject({ code: 'IP_NOT_ALLOWED', details: { ip: reported } });
    // Checked after the key: no budget is drawn for a refused address.
    expect(response.headers['ratelimit-limit']).toBeUndefined();
  }
  const graphql = await proxied.client.request('POST', '/graphql', {
    headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': '192.0.2.1', 'x-forwarded-proto': 'https' },
    json: { query: '{ events { total } }' },
  });
  expect(graphql.status).toBe(403);
  expect(graphql.body.errors[0].extensions).toEqual({ code: 'IP_NOT_ALLOWED', details: { ip: '192.0.2.1' } });
  // The key is checked first: a bad key from outside is a 401, not a 403.
  expect((await viaProxy('192.0.2.1', 'nk_live_' + 'z'.repeat(32))).status).toBe(401);
});

test('behind the proxy only the address it appended counts, not one the client forged before it', async () => {
  const { key } = await restrictedTenant(proxied, '203.0.113.0/24');
  // The client sent "X-Forwarded-For: 203.0.113.5"; the proxy appended the real peer.
  const forged = await viaProxy('203.0.113.5, 192.0.2.44', key);
  expect(forged.status).toBe(403);
  expect(forged.body.error.details).toEqual({ ip: '192.0.2.44' });
  expect((await viaProxy('192.0.2.44, 203.0.113.5', key)).status).toBe(200);
});

test('an IPv4-mapped entry counts as IPv4', async () => {
  const { key, view } = await restrictedTenant(proxied, '::ffff:192.0.2.0/120');
  expect(view.allowedIPs).toEqual(['192.0.2.0/24']);
  expect((await viaProxy('192.0.2.77', key)).status).toBe(200);
  expect((await viaProxy('::ffff:192.0.2.77', key)).status).toBe(200);
  expect((await viaProxy('192.0.3.77', key)).status).toBe(403);
});

test('without TRUST_PROXY the socket address decides and X-Forwarded-For is ignored (real 127.0.0.1)', async () => {
  const inside = await restrictedTenant(direct, '127.0.0.1');
  expect((await direct.client.rest('GET', '/v1/events', inside.key)).status).toBe(200);
  expect(
    (await direct.client.request('GET', '/v1/events', { headers: { authorization: `Bearer ${inside.key}`, 'x-forwarded-for': '10.9.9.9' } })).status,
  ).toBe(200);

  const outside = await restrictedTenant(direct, '10.0.0.0/8');
  const refused = await direct.client.request('GET', '/v1/events', {
    headers: { authorization: `Bearer ${outside.key}`, 'x-forwarded-for': '10.1.1.1' },
  });
  expect(refused.status).toBe(403);
  expect(refused.body.error).toMatchObject({ code: 'IP_NOT_ALLOWED', details: { ip: '127.0.0.1' } });

  // Turning the restriction off applies to the running server within a second.
  expect((await runCliInProcess(direct.databaseUrl, ['org', 'update', outside.organization.id, '--restriction-mode', 'off'])).code).toBe(0);
  expect(await within(1_000, async () => (await direct.client.rest('GET', '/v1/events', outside.key)).status === 200)).toBeDefined();
});

test('a STANDARD organization cannot enable the allowlist, and bad entries are all reported', async () => {
  const organization = await createOrganization(direct.orm);
  const strict = await runCliInProcess(direct.databaseUrl, ['org', 'update', organization.id, '--allowed-ips', '10.0.0.0/8', '--restriction-mode', 'STRICT']);
  expect(strict.code).not.toBe(0);
  expect(strict.stdout).toBe('');
  expect(strict.stderr).toContain('only ENTERPRISE organizations can use STRICT');
  expect(strict.stderr).toContain('only ENTERPRISE organizations can have allowed IPs');
  const stored = await direct.orm.em.fork().findOneOrFail(OrganizationEntity, { id: organization.id });
  expect({ allowedIps: stored.allowedIps, restrictionMode: stored.restrictionMode }).toEqual({ allowedIps: [], restrictionMode: 'OFF' });

  const bad = await runCliInProcess(direct.databaseUrl, [
    'org', 'update', organization.id, '--plan', 'enterprise', '--restriction-mode', 'sometimes',
    '--allowed-ips', '10.0.0.1/8,300.1.1.1,127.1,fe80::1%eth0,2001:db8::/129,example.com,::1',
  ]);
  expect(bad.code).not.toBe(0);
  for (const expected of [
    'restriction-mode', 'allowedIPs[0]: "10.0.0.1/8": host bits are set; did you mean 10.0.0.0/8?', 'allowedIPs[1]', 'allowedIPs[2]',
    'allowedIPs[3]', 'allowedIPs[4]: "2001:db8::/129": the prefix length must be 0 to 128', 'allowedIPs[5]',
  ]) {
    expect(bad.stderr).toContain(expected);
  }
  expect(bad.stderr).not.toContain('allowedIPs[6]');

  const strictWithoutList = await runCliInProcess(direct.databaseUrl, ['org', 'update', organization.id, '--plan', 'enterprise', '--restriction-mode', 'strict']);
  expect(strictWithoutList.code).not.toBe(0);
  expect(strictWithoutList.stderr).toContain('STRICT needs at least one allowed address');

  const downgrade = await restrictedTenant(direct, '10.0.0.0/8');
  const refusedDowngrade = await runCliInProcess(direct.databaseUrl, ['org', 'update', downgrade.organization.id, '--plan', 'standard']);
  expect(refusedDowngrade.code).not.toBe(0);
  const allowedDowngrade = await runCliInProcess(direct.databaseUrl, [
    'org', 'update', downgrade.organization.id, '--plan', 'standard', '--allowed-ips', '', '--restriction-mode', 'off',
  ]);
  expect(allowedDowngrade.code).toBe(0);
  expect(allowedDowngrade.json).toMatchObject({ plan: 'STANDARD', allowedIPs: [], restrictionMode: 'OFF' });
});
