import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { executeOnOrm } from '../db/prepared-statements';
import { sqlStatements } from '../db/sql-statement';

const sql = sqlStatements(__filename);

export const LAST_USED_INTERVAL_MS = 60_000;
const MAX_TRACKED_KEYS = 10_000;

/** The guarded write: nothing when another instance wrote the key in the last minute. */
const TOUCH_LAST_USED = sql.statement<{ apiKeyId: string }>(
  'touchLastUsed',
  `update api_keys set last_used_at = now() where id = :apiKeyId and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
);

/**
 * Writes api_keys.last_used_at at most once a minute per key: an in-process throttle skips the write
 * for a key written in the last minute, and the guarded UPDATE skips it when another instance did.
 * The write runs after the response is on its way; its failure is logged, never seen by a client.
 */
export class LastUsedRecorder {
  private readonly writtenAt = new Map<string, number>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger,
  ) {}

  record(apiKeyId: string): void {
    const now = Date.now();
    const last = this.writtenAt.get(apiKeyId);
    if (last !== undefined && now - last < LAST_USED_INTERVAL_MS) return;
    if (this.writtenAt.size >= MAX_TRACKED_KEYS) this.writtenAt.delete(this.writtenAt.keys().next().value as string);
    this.writtenAt.delete(apiKeyId);
    this.writtenAt.set(apiKeyId, now);
    const write = this.write(apiKeyId).finally(() => this.pending.delete(write));
    this.pending.add(write);
  }

  /** Resolves when every write started so far has finished (shutdown, tests). */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private async write(apiKeyId: string): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      await executeOnOrm(this.orm.em.fork(), TOUCH_LAST_USED, { apiKeyId });
    } catch (error) {
      this.writtenAt.delete(apiKeyId);
      this.logger.warn({ err: error instanceof Error ? error.message : String(error), apiKeyId }, 'could not record lastUsedAt');
    }
  }
}
