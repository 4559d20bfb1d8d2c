import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { executeOnOrm } from './prepared-statements';
import { sqlStatements } from './sql-statement';

const sql = sqlStatements(__filename);

/*
 * A table's first statistics, taken as soon as it holds rows (D25: reads that stay fast as data grows).
 *
 * Until PostgreSQL has analyzed a table it plans with default selectivities, and the service's
 * statements are prepared: each connection keeps the plan it made then. For an event read by its
 * slug, `organization_id = $1` then looks as selective as `organization_id = $1 and slug = $2`, and
 * the narrower index that leads with organization_id (the primary key) wins the tie: every read of an
 * event walked all of its organization's events (a read far slower than through the slug's index;
 * figures in docs/performance.md). Autovacuum analyzes
 * a new table only on its next visit of the database (autovacuum_naptime, a minute by default), and
 * ANALYZE invalidates the plans made without statistics, so the problem lasts until then: after a
 * deployment's first bulk load, or on a fresh database.
 *
 * An instance looks, once `commitsPerLook` commits of its units of work were made since a look last
 * analyzed something, and at most once every `intervalMs`, for tables of the service's schema that were never analyzed (pg_class.reltuples < 0)
 * and hold at least `minRows` live rows, and analyzes them, one instance at a time (an advisory lock
 * taken without waiting). Writes are what make a table grow, so an idle instance, or one whose
 * database is down (whose units of work do not commit), makes no look. After that first time autovacuum keeps them current
 * (it analyzes a table again once 10 % of its rows changed). The check is one catalog query; the
 * analysis is one statement (a DO block: its own transaction, the lock released with it). Each runs on
 * the ORM's pool outside any transaction, as the hold-expiry sweep's do: with a stopped database the
 * statement fails and the next look tries again (a knex transaction begun there, or a postgres.js pool
 * idle until the job's query, ended a faults-database run with an unhandled connection error).
 */

const NEVER_ANALYZED = sql.statement<{ minRows: number }, { table: string }>(
  'neverAnalyzed',
  `select s.relname as "table" from pg_stat_user_tables s join pg_class c on c.oid = s.relid
  where s.schemaname = current_schema() and c.reltuples < 0 and s.n_live_tup >= :minRows
  order by s.relname`,
);

/** Of the given tables (`tables`: a PostgreSQL array literal of their names), those that have statistics now (whoever took them). */
const ANALYZED = sql.statement<{ tables: string }, { table: string }>(
  'analyzed',
  `select c.relname as "table" from pg_class c
  where c.relnamespace = current_schema()::regnamespace and c.relname = any(:tables::text[]) and c.reltuples >= 0
  order by c.relname`,
);

/** The lock the instances take (transaction-scoped, without waiting) to analyze one at a time. */
export const FIRST_STATISTICS_LOCK = `hashtext('event_service_first_statistics')`;

export interface FirstStatisticsSettings {
  /** The shortest time between two looks of an instance. */
  readonly intervalMs: number;
  /** Commits of units of work (`committed()`) after which an instance looks again. */
  readonly commitsPerLook: number;
  /** A table is analyzed once it holds this many live rows (a smaller one is read whole cheaply anyway). */
  readonly minRows: number;
}

export const DEFAULT_FIRST_STATISTICS: FirstStatisticsSettings = { intervalMs: 1_000, commitsPerLook: 100, minRows: 100 };

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * One statement analyzing the tables while this instance holds the lock; nothing when another holds it.
 * Not a declared statement: a DO block cannot be prepared, and its text names the tables.
 */
const analyzeStatement = (tables: readonly string[]) =>
  `do $$ begin if pg_try_advisory_xact_lock(${FIRST_STATISTICS_LOCK}) then ${tables.map((table) => `analyze ${quoted(table)};`).join(' ')} end if; end $$`;

export class FirstStatistics {
  private running: Promise<string[]> | undefined;
  private started = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private commits = 0;
  private lastLook = 0;

  constructor(
    private readonly em: EntityManager,
    private readonly logger: Logger,
    private readonly settings: FirstStatisticsSettings = DEFAULT_FIRST_STATISTICS,
  ) {}

  /** Looks from now on (the request context calls committed() after each unit of work: its scope's `written`). */
  start(): void {
    this.started = true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /**
   * A unit of work committed: once `commitsPerLook` did since a look last analyzed something, a look in
   * the background, at once or (the last one too recent) when `intervalMs` has passed since it, so that
   * the last commits of a bulk load are looked at too.
   */
  readonly committed = (): void => {
    this.commits += 1;
    if (!this.started || this.stopped || this.timer !== undefined || this.commits < this.settings.commitsPerLook) return;
    const wait = this.lastLook + this.settings.intervalMs - Date.now();
    if (wait <= 0) return this.look();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.look();
    }, wait);
    this.timer.unref();
  };

  private look(): void {
    if (this.stopped || this.running) return;
    this.lastLook = Date.now();
    void this.runOnce().then((analyzed) => {
      // Nothing yet (PostgreSQL's live row counts trail the commits by up to a second): keep counting.
      if (analyzed.length > 0) this.commits = 0;
    });
  }

  /** One look now (one under way is joined): the tables it found without statistics that have them now. */
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

  private async analyzeNew(): Promise<string[]> {
    const found = await executeOnOrm(this.em.fork(), NEVER_ANALYZED, { minRows: this.settings.minRows });
    if (found.length === 0 || this.stopped) return [];
    const tables = found.map((row) => row.table);
    await this.em.fork().execute(analyzeStatement(tables));
    // Analyzed by this instance, or by another that held the lock: either way they have statistics now.
    const analyzed = (await executeOnOrm(this.em.fork(), ANALYZED, { tables: `{${tables.join(',')}}` })).map((row) => row.table);
    if (analyzed.length > 0) this.logger.info({ tables: analyzed }, 'first statistics: analyzed tables that had none');
    return analyzed;
  }
}
