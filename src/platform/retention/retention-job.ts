import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { Counter, type Metric } from 'prom-client';
import type { RetentionSettings } from '../../foundation/config';
import { executeOnOrm } from '../db/prepared-statements';
import { sqlStatements, type SqlStatement } from '../db/sql-statement';

const sql = sqlStatements(__filename);

/**
 * One kind of row that only grows unless deleted: how to delete one batch of what is past its time.
 * Each module states its own (the SQL of its tables stays in the module).
 */
export interface RetentionRule {
  /** The rule's name and the table it deletes from (the metric's `table` label). */
  readonly table: string;
  /**
   * Deletes at most `limit` rows past their retention with `em` (inside the job's short transaction):
   * how many rows of each table went (rows deleted with them, like a message's deliveries and
   * attempts, included) and whether there may be more (the batch was full).
   */
  deleteBatch(em: EntityManager, limit: number): Promise<BatchResult>;
}

export interface BatchResult {
  readonly deleted: Readonly<Record<string, number>>;
  readonly more: boolean;
}

/** A rule whose batch is one statement deleting rows of one table (see countDeleted). */
export function singleTableRule(table: string, deleteBatch: (em: EntityManager, limit: number) => Promise<number>): RetentionRule {
  return {
    table,
    async deleteBatch(em, limit) {
      const count = await deleteBatch(em, limit);
      return { deleted: { [table]: count }, more: count >= limit };
    },
  };
}

/**
 * The job's lock: every instance runs the job, and each batch's transaction first takes this
 * transaction-level advisory lock without waiting. An instance that does not get it ends its run
 * (another is deleting), so no two instances ever scan or delete the same rows at once.
 */
export const RETENTION_LOCK = sql.statement<Record<string, never>, { locked: boolean }>(
  'retentionLock',
  `select pg_try_advisory_xact_lock(hashtext('event_service_retention')) as locked`,
);

const JITTER = 0.2;

export type RunOutcome = 'completed' | 'skipped' | 'failed' | 'stopped';

/**
 * The periodic job of every instance: each run walks the rules in order and deletes in
 * batches of `batchSize` rows, each batch its own transaction (no long lock, no large transaction),
 * until a batch comes back short. Waits `intervalMs` ±20 % between runs, so instances started
 * together drift apart; stop() ends it between two batches.
 */
export class RetentionJob {
  readonly deleted = new Counter({
    name: 'retention_rows_deleted_total',
    help: 'Rows deleted by the retention job because they were past their retention, by table',
    labelNames: ['table'] as const,
    registers: [],
  });
  readonly runs = new Counter({
    name: 'retention_runs_total',
    help: 'Runs of the retention job by outcome (skipped: another instance held the retention lock)',
    labelNames: ['outcome'] as const,
    registers: [],
  });
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<RunOutcome> | undefined;
  private stopped = false;

  constructor(
    private readonly orm: MikroORM,
    private readonly settings: Pick<RetentionSettings, 'intervalMs' | 'batchSize'>,
    private readonly rules: readonly RetentionRule[],
    private readonly logger: Logger,
  ) {}

  get metrics(): Metric[] {
    return [this.deleted, this.runs];
  }

  start(): void {
    this.schedule();
  }

  /** Ends the job: no new run, and a run under way stops after its current batch. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One run now (a run already under way is joined, not doubled). */
  runOnce(): Promise<RunOutcome> {
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    const wait = Math.round(this.settings.intervalMs * (1 - JITTER + Math.random() * 2 * JITTER));
    this.timer = setTimeout(() => void this.runOnce().finally(() => this.schedule()), wait);
    this.timer.unref();
  }

  private async run(): Promise<RunOutcome> {
    const outcome = await this.deleteAll().catch((error: unknown) => {
      this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'retention: deleting rows past their retention failed');
      return 'failed' as const;
    });
    this.runs.inc({ outcome });
    return outcome;
  }

  private async deleteAll(): Promise<RunOutcome> {
    const totals: Record<string, number> = {};
    for (const rule of this.rules) {
      for (;;) {
        if (this.stopped) return 'stopped';
        const result = await this.batch(rule);
        if (result === undefined) return 'skipped';
        for (const [table, count] of Object.entries(result.deleted)) {
          if (count === 0) continue;
          this.deleted.inc({ table }, count);
          totals[table] = (totals[table] ?? 0) + count;
        }
        if (!result.more) break;
      }
    }
    if (Object.keys(totals).length > 0) this.logger.info({ deleted: totals }, 'retention: deleted rows past their retention');
    return 'completed';
  }

  /** One batch in its own transaction, under the retention lock; undefined when another instance holds it. */
  private batch(rule: RetentionRule): Promise<BatchResult | undefined> {
    return this.orm.em.fork().transactional(async (em) => {
      const [{ locked }] = await executeOnOrm(em, RETENTION_LOCK, {});
      if (!locked) return undefined;
      return rule.deleteBatch(em, this.settings.batchSize);
    });
  }
}

/**
 * The number a declared `with gone as (delete … returning 1) select count(*)::int as deleted from gone`
 * statement gives, run through the ORM (the job's transaction).
 */
export async function countDeleted<Params extends object>(em: EntityManager, statement: SqlStatement<Params, unknown>, params: Params): Promise<number> {
  const [row] = (await executeOnOrm(em, statement, params)) as Array<{ deleted: number | string } | undefined>;
  return Number(row?.deleted ?? 0);
}
