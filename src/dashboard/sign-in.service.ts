import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors/app-error';
import { verifyPassword } from './password';

/** Failed sign-ins allowed per account and per address within the window, then 429 until it passes. */
export const SIGN_IN_LIMITS = { perAccount: 5, perAddress: 20, windowMs: 15 * 60_000 } as const;

const wrongCredentials = () => new AppError('UNAUTHORIZED', 'The email or the password is wrong');

/**
 * Email and password to a member id. Failures are counted in PostgreSQL, so every instance shares the
 * limits; past either one, even the right password is refused until the window passes.
 */
export class SignInService {
  constructor(private readonly em: EntityManager) {}

  async signIn(email: unknown, password: unknown, clientIp: string): Promise<string> {
    if (typeof email !== 'string' || typeof password !== 'string' || email.length > 254 || password.length > 256) {
      throw AppError.validation([{ field: 'body', message: 'send {"email": string, "password": string}' }]);
    }
    const account = email.trim().toLowerCase();
    await this.assertNotLimited(account, clientIp);
    const candidates: Array<{ member_id: string; password_hash: string }> = await this.em.execute(
      `select c.member_id, c.password_hash from member_credentials c join members m on m.id = c.member_id
        where m.email = ? order by m.created_at, m.id`,
      [account],
    );
    if (candidates.length === 0) await verifyPassword(undefined, password);
    for (const candidate of candidates) {
      if (await verifyPassword(candidate.password_hash, password)) {
        await this.em.execute('delete from sign_in_failures where email = ?', [account]);
        return candidate.member_id;
      }
    }
    await this.em.execute('insert into sign_in_failures (email, ip) values (?, ?)', [account, clientIp]);
    // Failures older than the window count for nothing: now and then, forget them.
    if (Math.random() < 0.01) {
      await this.em.execute(`delete from sign_in_failures where at < now() - ? * interval '1 millisecond'`, [SIGN_IN_LIMITS.windowMs]);
    }
    throw wrongCredentials();
  }

  private async assertNotLimited(account: string, clientIp: string): Promise<void> {
    const [row]: Array<{ by_account: string; by_address: string; oldest: Date | null }> = await this.em.execute(
      `select count(*) filter (where email = ?) as by_account, count(*) filter (where ip = ?) as by_address, min(at) as oldest
         from sign_in_failures where (email = ? or ip = ?) and at > now() - ? * interval '1 millisecond'`,
      [account, clientIp, account, clientIp, SIGN_IN_LIMITS.windowMs],
    );
    if (Number(row.by_account) < SIGN_IN_LIMITS.perAccount && Number(row.by_address) < SIGN_IN_LIMITS.perAddress) return;
    const oldest = row.oldest ? new Date(row.oldest).getTime() : Date.now();
    const retryAfterSeconds = Math.max(1, Math.ceil((oldest + SIGN_IN_LIMITS.windowMs - Date.now()) / 1000));
    throw new AppError('RATE_LIMITED', `Too many failed sign-ins; retry in ${retryAfterSeconds} s`, { retryAfterSeconds });
  }
}
