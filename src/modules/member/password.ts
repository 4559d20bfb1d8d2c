import { hash, verify } from '@node-rs/argon2';
import { AppError } from '../../foundation/errors/app-error';

// Argon2id with OWASP's recommended minimum (19 MiB, 2 passes, 1 lane): memory-hard (its cost: docs/performance.md).
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
export const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_LENGTH = 256;

export function assertAcceptablePassword(password: unknown): asserts password is string {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw AppError.validation([{ field: 'password', message: `the password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters` }]);
  }
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

// A hash to verify against when the email is unknown, so a miss costs as long as a wrong password.
let decoy: Promise<string> | undefined;

export async function verifyPassword(passwordHash: string | undefined, password: string): Promise<boolean> {
  if (passwordHash === undefined) {
    decoy ??= hashPassword('decoy password nobody has');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}
