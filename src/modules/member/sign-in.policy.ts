import { AppError } from '../../foundation/errors/app-error';

/* The dashboard's sign-in rules (docs/dashboard.md), as pure functions: no database, no clock unless given. */

/** Failed sign-ins allowed per account and per address within the window, then 429 until it passes. */
export const SIGN_IN_LIMITS = { perAccount: 5, perAddress: 20, windowMs: 15 * 60_000 } as const;

/** The body is `{"email": string, "password": string}` within sane lengths. */
export function assertSignInBody(email: unknown, password: unknown): asserts email is string {
  if (typeof email !== 'string' || typeof password !== 'string' || email.length > 254 || password.length > 256) {
    throw AppError.validation([{ field: 'body', message: 'send {"email": string, "password": string}' }]);
  }
}

/** Past either limit, even the right password is refused (RATE_LIMITED) until the oldest failure leaves the window. */
export function assertSignInAllowed(failures: { byAccount: number; byAddress: number; oldest: Date | null }, now: number): void {
  if (failures.byAccount < SIGN_IN_LIMITS.perAccount && failures.byAddress < SIGN_IN_LIMITS.perAddress) return;
  const oldest = failures.oldest?.getTime() ?? now;
  const retryAfterSeconds = Math.max(1, Math.ceil((oldest + SIGN_IN_LIMITS.windowMs - now) / 1000));
  throw new AppError('RATE_LIMITED', `Too many failed sign-ins; retry in ${retryAfterSeconds} s`, { retryAfterSeconds });
}

/** One answer for an unknown email and a wrong password alike. */
export function wrongCredentialsError(): AppError {
  return new AppError('UNAUTHORIZED', 'The email or the password is wrong');
}
