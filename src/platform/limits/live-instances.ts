import { sqlStatements } from '../db/sql-statement';

const sql = sqlStatements(__filename);

/**
 * How many instances of the service are running now, as PostgreSQL sees them (D12): the
 * connections of their credential-change listeners (one per live instance, held open and probed four
 * times a second: src/platform/auth/auth-change-listener.ts) to this database. A crashed instance's
 * connection is gone when its socket is; nothing to register, nothing to expire.
 *
 * Used only while Redis is unreachable: each instance then counts an organization's requests on its
 * own and allows its share of the limit, so N instances together allow about the limit, not N times it.
 */
export class LiveInstances {
  private known = 1;
  private countedAt = Number.NEGATIVE_INFINITY;
  private counting: Promise<void> | undefined;

  constructor(
    /** The number of live instances, from PostgreSQL; a failure keeps the last known. */
    private readonly countNow: () => Promise<number>,
    private readonly freshMs = 5_000,
    private readonly waitMs = 500,
  ) {}

  /** The last count (at least 1), counted again first when older than `freshMs` (waiting at most `waitMs`). */
  async current(): Promise<number> {
    if (Date.now() - this.countedAt > this.freshMs) {
      this.counting ??= this.countNow()
        .then((count) => {
          this.known = Math.max(1, Math.floor(count));
          this.countedAt = Date.now();
        })
        .catch(() => {
          // The database is unreachable too: the last count stands, asked again on the next request.
        })
        .finally(() => {
          this.counting = undefined;
        });
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.counting, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.waitMs)))]);
      clearTimeout(timer);
    }
    return this.known;
  }

  /** The last count, without asking again (for /readyz and metrics). */
  get last(): number {
    return this.known;
  }
}

/** The statement that counts them: `applicationName` is the listeners' (LISTENER_APPLICATION_NAME). */
export const LIVE_INSTANCES = sql.statement<{ applicationName: string }, { instances: number }>(
  'liveInstances',
  'select count(*)::int as instances from pg_stat_activity where datname = current_database() and application_name = :applicationName',
);
