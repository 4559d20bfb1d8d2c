import { AppError } from '../../src/foundation/errors/app-error';
import { MemberRole } from '../../src/modules/member/member.entity';
import {
  assertKeepsAnAdmin,
  duplicateEmailError,
  INVITATION_LIFETIME_MS,
  invitationExpiry,
  newMemberErrors,
  normalizeEmail,
  parseRole,
} from '../../src/modules/member/member.policy';
import { assertSignInAllowed, assertSignInBody, SIGN_IN_LIMITS } from '../../src/modules/member/sign-in.policy';

// Pure rules (docs/decisions/ D8, D19; docs/dashboard.md): no database, no HTTP.
const { ADMIN, MEMBER } = MemberRole;

function thrown(fn: () => void): AppError | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  return undefined;
}

describe('new members (D8)', () => {
  test.each([
    [undefined, MEMBER],
    ['member', MEMBER],
    ['MEMBER', MEMBER],
    ['admin', ADMIN],
    ['Admin', ADMIN],
    ['owner', undefined],
    ['', undefined],
  ])('role %j is %s', (value, role) => expect(parseRole(value)).toBe(role));

  test('emails are trimmed and lower-cased: one address is one member', () => {
    expect(normalizeEmail('  Ada@Example.COM ')).toBe('ada@example.com');
    expect(duplicateEmailError('ada@example.com')).toEqual({
      field: 'email',
      message: 'a member with email "ada@example.com" already exists in this organization',
    });
  });

  test('every failing field at once, in the order email, name, role', () => {
    expect(newMemberErrors({ email: 'ada@example.com', name: 'Ada', role: MEMBER })).toEqual([]);
    expect(newMemberErrors({ email: 'not-an-email', name: '', role: undefined })).toEqual([
      { field: 'email', message: 'email must be an email address of at most 254 characters' },
      { field: 'name', message: 'name must be 1 to 200 characters' },
      { field: 'role', message: 'role must be admin or member' },
    ]);
    const long = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`;
    expect(newMemberErrors({ email: long, name: 'x'.repeat(201), role: ADMIN }).map((error) => error.field)).toEqual(['email', 'name']);
  });
});

describe('the organization keeps an admin (D19)', () => {
  test.each([
    // actor, member's role, new role (null: removal), other admins, refused
    ['dashboard', ADMIN, MEMBER, 0, true],
    ['dashboard', ADMIN, null, 0, true],
    ['dashboard', ADMIN, MEMBER, 1, false],
    ['dashboard', ADMIN, null, 2, false],
    ['dashboard', ADMIN, ADMIN, 0, false],
    ['dashboard', MEMBER, null, 0, false],
    ['dashboard', MEMBER, ADMIN, 0, false],
    ['operator', ADMIN, null, 0, false],
  ] as const)('%s: %s to %s with %i other admin(s): refused %s', (actor, role, to, otherAdmins, refused) => {
    const error = thrown(() => assertKeepsAnAdmin(actor, { role }, to, otherAdmins));
    if (!refused) return expect(error).toBeUndefined();
    expect(error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { errors: [{ field: 'id', message: 'the organization must keep at least one admin: make someone else admin first' }] },
    });
  });
});

test('an invitation link works for 24 hours', () => {
  const now = new Date('2030-01-01T00:00:00Z');
  expect(INVITATION_LIFETIME_MS).toBe(24 * 3_600_000);
  expect(invitationExpiry(now)).toEqual(new Date('2030-01-02T00:00:00Z'));
});

describe('sign-in (dashboard)', () => {
  test('the body is an email and a password, within sane lengths', () => {
    expect(thrown(() => assertSignInBody('ada@example.com', 'correct horse battery'))).toBeUndefined();
    for (const [email, password] of [
      [undefined, 'x'],
      ['ada@example.com', 12],
      ['a'.repeat(255), 'x'],
      ['ada@example.com', 'x'.repeat(257)],
    ]) {
      expect(thrown(() => assertSignInBody(email, password))).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { errors: [{ field: 'body', message: 'send {"email": string, "password": string}' }] },
      });
    }
  });

  const now = Date.parse('2030-01-01T00:15:00Z');
  test.each([
    [0, 0, false],
    [SIGN_IN_LIMITS.perAccount - 1, SIGN_IN_LIMITS.perAddress - 1, false],
    [SIGN_IN_LIMITS.perAccount, 0, true],
    [0, SIGN_IN_LIMITS.perAddress, true],
  ])('%i failures for the account, %i from the address: limited %s', (byAccount, byAddress, limited) => {
    const error = thrown(() => assertSignInAllowed({ byAccount, byAddress, oldest: new Date(now - 60_000) }, now));
    expect(error?.code).toBe(limited ? 'RATE_LIMITED' : undefined);
  });

  test('limited until the oldest failure leaves the window (at least 1 s)', () => {
    const oldest = new Date(now - SIGN_IN_LIMITS.windowMs + 90_000);
    expect(thrown(() => assertSignInAllowed({ byAccount: 5, byAddress: 0, oldest }, now))).toMatchObject({
      code: 'RATE_LIMITED',
      message: 'Too many failed sign-ins; retry in 90 s',
      details: { retryAfterSeconds: 90 },
    });
    const gone = new Date(now - SIGN_IN_LIMITS.windowMs);
    expect(thrown(() => assertSignInAllowed({ byAccount: 5, byAddress: 0, oldest: gone }, now))?.details).toEqual({ retryAfterSeconds: 1 });
  });
});
