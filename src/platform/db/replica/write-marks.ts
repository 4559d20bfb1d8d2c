import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** Each organization's last write position, shared by every instance through Redis (keeps the larger). */
const KEEP_LARGER = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > current then redis.call('SET', KEYS[1], ARGV[1]) end
return 1`;

/** What a reader learns of its organization's last write: a WAL position (0: none known), or that nobody can say (Redis down). */
export type LastWrite = number | 'unknown';

/**
 * Where each organization's last write lies in the primary's WAL (D25): in this process, and in Redis
 * when REDIS_URL is set, so that a write through one instance holds back the reads of that
 * organization on every instance. A mark is kept as the largest position seen (a Lua script), one key
 * per organization that wrote, without expiry (a replica paused for days must still not lie).
 *
 * Without Redis the marks are this process's only: read-your-writes then holds for clients that stay
 * on one instance (docs/operating.md, "Read replica").
 */
export class WriteMarks {
  private readonly local = new Map<string, number>();
  /** Marks Redis did not take, and reads for which Redis could not say (since start). */
  publishFailures = 0;
  private warnedAt = 0;

  constructor(
    private readonly redis: Redis | undefined,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {
    redis?.defineCommand('keepLargerWalMark', { numberOfKeys: 1, lua: KEEP_LARGER });
  }

  private keyOf(organizationId: string): string {
    return `${this.prefix}:wal-mark:${organizationId}`;
  }

  /** Records that `organizationId` wrote at or before `position`; resolves once Redis took it (or failed to). */
  async record(organizationId: string, position: number): Promise<void> {
    if (position > (this.local.get(organizationId) ?? 0)) this.local.set(organizationId, position);
    if (this.redis === undefined) return;
    try {
      await (this.redis as Redis & { keepLargerWalMark(key: string, position: string): Promise<number> }).keepLargerWalMark(
        this.keyOf(organizationId),
        String(position),
      );
    } catch (error) {
      // The write committed: its answer still goes out. Readers on this instance see the local mark;
      // readers elsewhere read the primary while Redis is down (`lastWrite` says 'unknown').
      this.publishFailures += 1;
      this.warn(error, 'could not share a write position through Redis');
    }
  }

  /** The largest position `organizationId` is known to have written at, from here and from Redis. */
  async lastWrite(organizationId: string): Promise<LastWrite> {
    const local = this.local.get(organizationId) ?? 0;
    if (this.redis === undefined) return local;
    if (this.redis.status !== 'ready') return 'unknown';
    try {
      const shared = await this.redis.get(this.keyOf(organizationId));
      return Math.max(local, shared === null ? 0 : Number(shared));
    } catch (error) {
      this.warn(error, 'could not read a write position from Redis: the primary answers');
      return 'unknown';
    }
  }

  private warn(error: unknown, message: string): void {
    const now = Date.now();
    if (now - this.warnedAt < 10_000) return;
    this.warnedAt = now;
    this.logger.warn({ err: error }, message);
  }
}
