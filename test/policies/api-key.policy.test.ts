import { PERMISSIONS } from '../../src/platform/auth/permissions';
import { AppError } from '../../src/foundation/errors/app-error';
import { KeyEnvironment } from '../../src/modules/api-key/api-key.entity';
import {
  assertRotatable,
  effectivePermissions,
  graceHoursErrors,
  keyStatus,
  MAX_GRACE_HOURS,
  needsRevocation,
  newKeyErrors,
  parseEnvironment,
  rotationDates,
} from '../../src/modules/api-key/api-key.policy';

// Pure rules (docs/decisions/ D2, D9, D19): no database, no HTTP.
const NOW = Date.parse('2030-01-01T00:00:00Z');
const HOUR = 3_600_000;
const fields = (errors: Array<{ field: string }>) => errors.map((error) => error.field);

function thrown(fn: () => void): AppError | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  return undefined;
}

describe('new keys (D9)', () => {
  test('environment is live or test, exactly', () => {
    expect(parseEnvironment('live')).toBe(KeyEnvironment.LIVE);
    expect(parseEnvironment('test')).toBe(KeyEnvironment.TEST);
    expect(parseEnvironment('LIVE')).toBeUndefined();
  });

  test('a valid key has no errors', () => {
    expect(newKeyErrors({ name: 'ci', permissions: ['events:read'], environment: 'test', expiresAt: new Date(NOW + 1) }, NOW)).toEqual([]);
    expect(newKeyErrors({ name: 'x'.repeat(200), permissions: [...PERMISSIONS] }, NOW)).toEqual([]);
  });

  test('every failing field at once', () => {
    expect(newKeyErrors({ name: '', permissions: ['events:fly', 'events:read', 'admin'], environment: 'prod', expiresAt: new Date(NOW) }, NOW)).toEqual([
      { field: 'environment', message: 'environment must be live or test' },
      { field: 'name', message: 'name must be 1 to 200 characters' },
      { field: 'permissions', message: `unknown permission "events:fly", "admin"; valid: ${PERMISSIONS.join(', ')}` },
      { field: 'expiresAt', message: 'expiresAt must be in the future' },
    ]);
    expect(newKeyErrors({ name: 'x'.repeat(201), permissions: [] }, NOW)).toEqual([
      { field: 'name', message: 'name must be 1 to 200 characters' },
      { field: 'permissions', message: 'give at least one permission' },
    ]);
  });
});

describe('rotation (D9)', () => {
  test.each([
    [0, true],
    [24, true],
    [MAX_GRACE_HOURS, true],
    [MAX_GRACE_HOURS + 1, false],
    [-1, false],
    [1.5, false],
  ])('grace of %p hours accepted: %s', (hours, accepted) => {
    expect(graceHoursErrors(hours)).toEqual(accepted ? [] : [{ field: 'graceHours', message: `the grace period must be 0 to ${MAX_GRACE_HOURS} hours` }]);
  });

  test('only a usable key is rotated', () => {
    expect(thrown(() => assertRotatable({ revokedAt: null, expiresAt: null }, NOW))).toBeUndefined();
    expect(thrown(() => assertRotatable({ revokedAt: null, expiresAt: new Date(NOW + 1) }, NOW))).toBeUndefined();
    expect(thrown(() => assertRotatable({ revokedAt: new Date(NOW - 1), expiresAt: null }, NOW))?.details).toEqual({
      errors: [{ field: 'keyId', message: 'the key is revoked; create a new one instead' }],
    });
    expect(thrown(() => assertRotatable({ revokedAt: null, expiresAt: new Date(NOW) }, NOW))?.details).toEqual({
      errors: [{ field: 'keyId', message: 'the key has expired; create a new one instead' }],
    });
  });

  test('a key without a lifetime: the replacement has none, the old one ends with the grace period', () => {
    expect(rotationDates({ createdAt: new Date(NOW - 10 * HOUR), expiresAt: null }, NOW, 24)).toEqual({
      replacementExpiresAt: null,
      previousExpiresAt: new Date(NOW + 24 * HOUR),
    });
    expect(rotationDates({ createdAt: new Date(NOW - HOUR), expiresAt: null }, NOW, 0).previousExpiresAt).toEqual(new Date(NOW));
  });

  test('a key with a lifetime: the same lifetime from now; the old one never outlives its own expiry', () => {
    const created = new Date(NOW - 10 * 24 * HOUR);
    const expires = new Date(NOW + 80 * 24 * HOUR);
    expect(rotationDates({ createdAt: created, expiresAt: expires }, NOW, 24)).toEqual({
      replacementExpiresAt: new Date(NOW + 90 * 24 * HOUR),
      previousExpiresAt: new Date(NOW + 24 * HOUR),
    });
    const soon = new Date(NOW + HOUR);
    expect(rotationDates({ createdAt: created, expiresAt: soon }, NOW, 24).previousExpiresAt).toEqual(soon);
  });
});

test('revoking a revoked key changes nothing', () => {
  expect(needsRevocation({ revokedAt: null })).toBe(true);
  expect(needsRevocation({ revokedAt: new Date(NOW) })).toBe(false);
});

describe("a dashboard key can do no more than its creator holds now (D19)", () => {
  const scopes = ['events:read', 'events:write', 'members:read'];
  test.each([
    ['a CLI key (no creator): its scopes', undefined, scopes],
    ['an ADMIN creator: its scopes', { role: 'ADMIN' }, scopes],
    ['a MEMBER creator: the :read ones', { role: 'MEMBER' }, ['events:read', 'members:read']],
    ['a removed creator: nothing', null, []],
    ['an unknown role: nothing', { role: 'OWNER' }, []],
  ])('%s', (_case, creator, expected) => {
    expect(effectivePermissions(scopes, creator)).toEqual(expected);
  });
});

test.each([
  [null, null, 'ACTIVE'],
  [null, new Date(NOW + 1), 'ACTIVE'],
  [null, new Date(NOW), 'EXPIRED'],
  [new Date(NOW - 1), new Date(NOW - 1), 'REVOKED'],
  [new Date(NOW - 1), null, 'REVOKED'],
])('revoked %p, expires %p: %s', (revokedAt, expiresAt, status) => {
  expect(keyStatus({ revokedAt, expiresAt }, NOW)).toBe(status);
});

test('permissions: names are checked against the closed list (D2)', () => {
  expect(fields(newKeyErrors({ name: 'k', permissions: ['webhooks:write', 'bookings:read'] }, NOW))).toEqual([]);
  expect(fields(newKeyErrors({ name: 'k', permissions: ['events:*'] }, NOW))).toEqual(['permissions']);
});
