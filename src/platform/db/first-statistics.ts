import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';

/*
 * A table's first statistics, taken as soon as it holds rows (D25: reads that stay fast as data grows).
 *
 * Until PostgreSQL has analyzed a table it plans with default selectivities, and the service's
 * statements are prepared: each connection keeps the plan it made then. For an event read by its
 * slug, `organization_id = $1` then looks as selective as `organization_id = $1 and slug = $2`, and
 * the narrower index that leads with organization_id (the primary key) wins the tie: every read of an
 * event walked all of its organization's events (0.6 ms instead of 0.03 ms for 1,000 events; the
 * shared benchmark's first pass right after seeding read at 0.44-0.65x the floor). Autovacuum analyzes
 * a new table only on its next visit of the database (autovacuum_naptime, a minute by default), and
 * ANALYZE invalidates the plans made without statistics, so the problem lasts until then: after a
 * deployment's first bulk load, or on a fresh database.
 *
 * Every instance looks every `intervalMs` for tables of the service's schema that were never analyzed
 * (pg_class.reltuples < 0) and hold at least `minRows` live rows, and analyzes them, one instance at a
 * time (an advisory lock taken without waiting). After that first time autovacuum keeps them current
 * (it analyzes a table again once 10 % of its rows changed). The check is one catalog query.
 */

const NEVER_ANALYZED = `select s.relname as "table" from pg_stat_user_tables s join pg_class c on c.oid = s.relid
  where s.schemaname = current_schema() and c.reltuples < 0 and s.n_live_tup >= ?
  order by s.relname`;

export const FIRST_STATISTICS_LOCK_SQL = `select pg_try_advisory_xact_lock(hashtext('event_service_first_statistics')) as locked`;

export interface FirstStatisticsSettings {
  /** How often every instance looks for tables without statistics. */
  readonly intervalMs: number;
  /** A table is analyzed once it holds this many live rows (a smaller one is read whole cheaply anyway). */
  readonly minRows: number;
}

export const DEFAULT_FIRST_STATISTICS: FirstStatisticsSettings = { intervalMs: 5_000, minRows: 100 };

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

export class FirstStatistics {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<string[]> | undefined;
  private stopped = false;

  constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger,
    private readonly settings: FirstStatisticsSettings = DEFAULT_FIRST_STATISTICS,
  ) {}

  start(): void {
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One look now (one under way is joined): the tables this instance analyzed. */
  runOnce(): Promise<string[]> {
    this.running ??= this.analyzeNew()
      .catch((error: unknown) => {
        this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'first statistics: analyzing new tables failed');
        return [];
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.runOnce().finally(() => this.schedule()), this.settings.intervalMs);
    this.timer.unref();
  }

  private async analyzeNew(): Promise<string[]> {
    const connection = this.orm.em.fork().getConnection();
    const tables = await connection.execute<Array<{ table: string }>>(NEVER_ANALYZED, [this.settings.minRows]);
    if (tables.length === 0 || this.stopped) return [];
    // The connection's transaction, not em.transactional: MikroORM runs that one in an
    // AsyncLocalStorage, whose first use turns on Node's promise hooks for the whole process.
    return connection.transactional(async (trx) => {
      const [{ locked }] = await connection.execute<Array<{ locked: boolean }>>(FIRST_STATISTICS_LOCK_SQL, [], 'all', trx);
      // Another instance is analyzing: it does these too.
      if (!locked) return [];
      for (const { table } of tables) await connection.execute(`analyze ${quoted(table)}`, [], 'all', trx);
      this.logger.info({ tables: tables.map((row) => row.table) }, 'first statistics: analyzed tables that had none');
      return tables.map((row) => row.table);
    });
  }
}
