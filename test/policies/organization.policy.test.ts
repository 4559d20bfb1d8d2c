import { normalizeAllowlist } from '../../src/modules/organization/ip-allowlist';
import { OrganizationPlan, RestrictionMode } from '../../src/modules/organization/organization.entity';
import {
  accessSettingsErrors,
  bookingWindowErrors,
  MAX_RATE_LIMIT_PER_MINUTE,
  organizationNameErrors,
  parseRestrictionMode,
  rateLimitErrors,
  restrictionModeErrors,
  timezoneErrors,
} from '../../src/modules/organization/organization.policy';

// Pure rules (docs/decisions/ D11, D12, D14): no database, no HTTP. Moved here from the CLI and
// dashboard suites, which keep one case each for their wiring.
const { STANDARD, ENTERPRISE } = OrganizationPlan;
const { OFF, STRICT } = RestrictionMode;
const fields = (errors: Array<{ field: string }>) => errors.map((error) => error.field);

test('a name is 1 to 200 characters', () => {
  expect(organizationNameErrors('Acme')).toEqual([]);
  expect(organizationNameErrors('x'.repeat(200))).toEqual([]);
  expect(organizationNameErrors('')).toEqual([{ field: 'name', message: 'name must be 1 to 200 characters' }]);
  expect(fields(organizationNameErrors('x'.repeat(201)))).toEqual(['name']);
});

test.each([
  [undefined, true],
  ['UTC', true],
  ['utc', true],
  ['Europe/Paris', true],
  ['America/Argentina/Buenos_Aires', true],
  ['Mars/Base', false],
  ['', false],
  ['+02:00', false],
])('timezone %j accepted: %s', (timezone, accepted) => {
  expect(timezoneErrors(timezone)).toEqual(
    accepted ? [] : [{ field: 'timezone', message: 'timezone must be an IANA time zone name such as Europe/Paris' }],
  );
});

test.each([
  [undefined, true],
  [null, true],
  [1, true],
  [MAX_RATE_LIMIT_PER_MINUTE, true],
  [0, false],
  [-5, false],
  [1.5, false],
  [MAX_RATE_LIMIT_PER_MINUTE + 1, false],
  [Number.NaN, false],
])('rate limit %p accepted: %s (D12; null is the server default)', (value, accepted) => {
  expect(fields(rateLimitErrors(value))).toEqual(accepted ? [] : ['rateLimitPerMinute']);
});

test('restriction mode is STRICT or OFF, exactly', () => {
  expect(parseRestrictionMode('STRICT')).toBe(STRICT);
  expect(parseRestrictionMode('OFF')).toBe(OFF);
  expect(parseRestrictionMode('strict')).toBeUndefined();
  expect(restrictionModeErrors(undefined)).toEqual([]);
  expect(restrictionModeErrors('SOMETIMES')).toEqual([{ field: 'restrictionMode', message: 'restrictionMode must be STRICT or OFF' }]);
});

describe('access settings (D11), on the settings as they would be after the change', () => {
  test.each([
    [STANDARD, [], OFF, []],
    [STANDARD, ['10.0.0.0/8'], OFF, ['allowedIPs']],
    [STANDARD, [], STRICT, ['restrictionMode', 'allowedIPs']],
    [STANDARD, ['10.0.0.0/8'], STRICT, ['restrictionMode', 'allowedIPs']],
    [ENTERPRISE, [], OFF, []],
    [ENTERPRISE, ['10.0.0.0/8'], OFF, []],
    [ENTERPRISE, [], STRICT, ['allowedIPs']],
    [ENTERPRISE, ['10.0.0.0/8'], STRICT, []],
  ])('%s with %j and %s: errors on %j', (plan, allowedIps, restrictionMode, expected) => {
    expect(fields(accessSettingsErrors({ plan, allowedIps, restrictionMode }))).toEqual(expected);
  });

  test('the messages say how to fix it', () => {
    expect(accessSettingsErrors({ plan: STANDARD, allowedIps: ['10.0.0.0/8'], restrictionMode: STRICT })).toEqual([
      { field: 'restrictionMode', message: 'only ENTERPRISE organizations can use STRICT (set --plan enterprise)' },
      { field: 'allowedIPs', message: 'only ENTERPRISE organizations can have allowed IPs (set --plan enterprise, or clear them with --allowed-ips "")' },
    ]);
    expect(accessSettingsErrors({ plan: ENTERPRISE, allowedIps: [], restrictionMode: STRICT })).toEqual([
      { field: 'allowedIPs', message: 'STRICT needs at least one allowed address or range' },
    ]);
  });
});

describe('allowlist entries (D11)', () => {
  test('canonical, deduplicated, IPv4-mapped entries as IPv4', () => {
    expect(normalizeAllowlist([' 203.0.113.0/24 ', '2001:0db8:0:0:0:0:0:1', '::ffff:198.51.100.7', '198.51.100.7', '::ffff:10.0.0.0/104'])).toEqual({
      list: ['203.0.113.0/24', '2001:db8::1', '198.51.100.7', '10.0.0.0/8'],
      errors: [],
    });
  });

  test.each([
    ['127.1', 'not an IPv4 or IPv6 address'],
    ['0x7f.0.0.1', 'not an IPv4 or IPv6 address'],
    ['fe80::1%eth0', 'zone identifiers'],
    ['10.0.0.1/8', 'host bits are set; did you mean 10.0.0.0/8?'],
    ['10.0.0.0/33', 'the prefix length must be 0 to 32'],
    ['10.0.0.0/8/1', 'expected an address or a CIDR range'],
    ['::ffff:10.0.0.0/90', 'at least 96'],
  ])('%j is refused: %s', (entry, message) => {
    const { errors } = normalizeAllowlist(['192.0.2.1', entry]);
    expect(errors).toHaveLength(1);
    expect(errors[0].field).toBe('allowedIPs[1]');
    expect(errors[0].message).toContain(message);
  });

  test('at most 256 entries', () => {
    const entries = Array.from({ length: 257 }, (_, index) => `10.0.${Math.floor(index / 256)}.${index % 256}`);
    expect(normalizeAllowlist(entries).errors).toEqual([{ field: 'allowedIPs', message: 'at most 256 entries' }]);
  });
});

test('holdMinutes and waitlistOfferMinutes are whole minutes from 1 to 1440 (D20, D21); every failing field is listed', () => {
  expect(bookingWindowErrors({})).toEqual([]);
  expect(bookingWindowErrors({ holdMinutes: 1, waitlistOfferMinutes: 1440 })).toEqual([]);
  expect(bookingWindowErrors({ holdMinutes: 15 })).toEqual([]);
  for (const bad of [0, -1, 1441, 1.5, Number.NaN, '15', null]) {
    expect(fields(bookingWindowErrors({ holdMinutes: bad }))).toEqual(['holdMinutes']);
    expect(fields(bookingWindowErrors({ waitlistOfferMinutes: bad }))).toEqual(['waitlistOfferMinutes']);
  }
  expect(bookingWindowErrors({ holdMinutes: 0, waitlistOfferMinutes: 2000 })).toEqual([
    { field: 'holdMinutes', message: 'holdMinutes must be a whole number of minutes from 1 to 1440' },
    { field: 'waitlistOfferMinutes', message: 'waitlistOfferMinutes must be a whole number of minutes from 1 to 1440' },
  ]);
});
