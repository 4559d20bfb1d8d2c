import type { MikroORM } from '@mikro-orm/postgresql';
import { AppError } from '../../src/errors/app-error';
import { ApiKeyService } from '../../src/modules/api-key/api-key.service';
import { MemberService } from '../../src/modules/member/member.service';
import { OrganizationPlan, RestrictionMode } from '../../src/modules/organization/organization.entity';
import { OrganizationService } from '../../src/modules/organization/organization.service';
import { openCommandDatabase, type CommandDatabase } from '../helpers/command-database';

// The operator's services behind the admin CLI (D8, D9, D11, D12), on real PostgreSQL without a
// process per call: the rule matrices; test/cli-*.test.ts prove the CLI's wiring.
let database: CommandDatabase;
let orm: MikroORM;
beforeAll(async () => {
  database = await openCommandDatabase();
  orm = database.orm;
});
afterAll(() => database.close());

const organizations = () => new OrganizationService(orm.em.fork());

async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

const fieldsOf = (error: AppError) => (error.details as { errors: Array<{ field: string }> }).errors.map((item) => item.field).sort();

test('organizations: creation rules, every failing field at once', async () => {
  const error = await failure(organizations().create({ name: ' ', timezone: 'Nowhere/City', rateLimitPerMinute: 0 }));
  expect(fieldsOf(error)).toEqual(['name', 'rateLimitPerMinute', 'timezone']);
  expect(await organizations().create({ name: 'Acme', timezone: 'utc' })).toMatchObject({ timezone: 'UTC', plan: OrganizationPlan.STANDARD });
});

test('organizations: the allowlist is for ENTERPRISE, STRICT needs an address, unknown ids are NOT_FOUND', async () => {
  const { id } = await organizations().create({ name: 'Standard' });
  expect(fieldsOf(await failure(organizations().update(id, { restrictionMode: RestrictionMode.STRICT, allowedIps: ['10.0.0.0/8'] })))).toEqual([
    'allowedIPs',
    'restrictionMode',
  ]);
  expect(fieldsOf(await failure(organizations().update(id, { timezone: 'Mars/Base', rateLimitPerMinute: 1.5, allowedIps: ['not an ip'] })))).toEqual(
    expect.arrayContaining(['rateLimitPerMinute', 'timezone']),
  );
  expect(fieldsOf(await failure(organizations().update(id, { plan: OrganizationPlan.ENTERPRISE, restrictionMode: RestrictionMode.STRICT })))).toEqual([
    'allowedIPs',
  ]);
  const updated = await organizations().update(id, {
    plan: OrganizationPlan.ENTERPRISE,
    restrictionMode: RestrictionMode.STRICT,
    allowedIps: ['10.0.0.0/8', '2001:db8::1'],
    timezone: 'Europe/Paris',
    rateLimitPerMinute: 50,
  });
  expect(updated).toMatchObject({ plan: OrganizationPlan.ENTERPRISE, restrictionMode: RestrictionMode.STRICT, timezone: 'Europe/Paris', rateLimitPerMinute: 50 });
  expect((await organizations().update(id, { rateLimitPerMinute: null })).rateLimitPerMinute).toBeNull();
  expect(await failure(organizations().update('org_missing', {}))).toMatchObject({ code: 'NOT_FOUND' });
  expect(await failure(organizations().get('org_missing'))).toMatchObject({ code: 'NOT_FOUND' });
});

test('keys: listed without secrets, revoked once, rotated with a grace period', async () => {
  const { id: organizationId } = await organizations().create({ name: 'Keys' });
  const keys = () => new ApiKeyService(orm.em.fork());
  const { entity, key } = await keys().create({ organizationId, name: 'ci', permissions: ['events:read'] });
  expect(key).toMatch(/^nk_(live|test)_[A-Za-z0-9]{32}$/);
  expect(fieldsOf(await failure(keys().create({ organizationId, name: '', permissions: ['events:fly'] })))).toEqual(
    expect.arrayContaining(['permissions']),
  );
  expect(await failure(keys().create({ organizationId: 'org_missing', name: 'x', permissions: ['events:read'] }))).toMatchObject({ code: 'NOT_FOUND' });
  const rotated = await keys().rotate(entity.id, 1);
  expect(rotated.key).not.toBe(key);
  expect(rotated.previous.expiresAt).toBeInstanceOf(Date);
  expect(fieldsOf(await failure(keys().rotate(rotated.entity.id, 10_000)))).toEqual(['graceHours']);
  expect((await keys().list(organizationId)).map((item) => item.id).sort()).toEqual([entity.id, rotated.entity.id].sort());
  expect((await keys().revoke(rotated.entity.id)).revokedAt).toBeInstanceOf(Date);
  expect(fieldsOf(await failure(keys().rotate(rotated.entity.id)))).toEqual(['keyId']);
  expect(await failure(keys().revoke('key_missing'))).toMatchObject({ code: 'NOT_FOUND' });
  expect(await failure(keys().list('org_missing'))).toMatchObject({ code: 'NOT_FOUND' });
});

test('members: one email per organization, roles, pages', async () => {
  const { id: organizationId } = await organizations().create({ name: 'Members' });
  const members = () => new MemberService(orm.em.fork());
  await members().add({ organizationId, email: 'lin@example.com', name: 'Lin', role: 'admin' });
  await members().add({ organizationId, email: 'max@example.com', name: 'Max' });
  expect(fieldsOf(await failure(members().add({ organizationId, email: 'LIN@example.com', name: 'Lin again' })))).toEqual(['email']);
  expect(fieldsOf(await failure(members().add({ organizationId, email: 'nope', name: '', role: 'owner' })))).toEqual(
    expect.arrayContaining(['email', 'role']),
  );
  expect(await failure(members().add({ organizationId: 'org_missing', email: 'a@example.com', name: 'A' }))).toMatchObject({ code: 'NOT_FOUND' });
  const page = await members().list(organizationId, { page: 1, limit: 1 });
  expect(page).toMatchObject({ total: 2, page: 1, limit: 1 });
  expect(fieldsOf(await failure(members().list(organizationId, { page: 0, limit: 1 })))).toEqual(['page']);
});
