import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import postgres from 'postgres';
import { Counter, Gauge, type Metric } from 'prom-client';
import type { DatabaseTimeouts, ReadReplicaSettings } from '../../../foundation/config';
import type { PreparedStatements } from '../prepared-statements';
import { openStatementPool, reconnectBackoff, type StatementPool } from '../statement-pool';
import { ReplicaState, type ReplicaStatus } from './replica-state';
import { PrimaryWalPosition, walPositionOf } from './wal-position';
import { WriteMarks } from './write-marks';

/** How often a waiting read looks at the replica's replay position again. */
const WAIT_POLL_MS = 10;
/** How often the replica's state and lag are sampled in the background. */
const TICK_MS = 1_000;

/** Where a read-only request reads: the replica's entity manager and hot reads (each falling back to the primary on an error). */
export interface ReadSource {
  readonly orm: MikroORM;
  readonly reads: PreparedStatements;
}

/** Why a read that could have gone to the replica was answered by the primary. */
export type FallbackReason = 'waited-out' | 'redis-down' | 'replica-down' | 'replica-error';

/**
 * Reads on a streaming replica that never lie to a writer (D25).
 *
 * After each unit of work commits, the request that ran it asks the primary's WAL position (coalesced:
 * one statement for the commits waiting together) and records it as its organization's mark, here and
 * in Redis (WriteMarks); its answer is sent after that. A read-only request (REST GET, GraphQL query)
 * of organization X is sent to the replica when the replica has replayed X's mark; else it waits, up to
 * READ_REPLICA_MAX_WAIT_MS, for replay to get there, then the primary answers. Redis unreachable or the
 * replica down: the primary answers (never a stale read, never a 5xx of the replica's making). Writes,
 * mutations, authentication, idempotency and sessions never come here: they use the primary.
 */
export class ReadReplica {
  readonly metrics: readonly Metric[];
  private readonly reads = new Counter({ name: 'read_replica_reads_total', help: 'Read-only requests by the database that served them', labelNames: ['source'] as const, registers: [] });
  private readonly fallbacks = new Counter({
    name: 'read_replica_fallbacks_total',
    help: 'Reads the primary answered instead of the replica, by reason (waited-out: replay did not reach the organization\'s last write in time)',
    labelNames: ['reason'] as const,
    registers: [],
  });
  private readonly source: ReadSource;
  private readonly position: PrimaryWalPosition;
  private readonly timer: NodeJS.Timeout;
  private warnedAt = 0;

  constructor(
    private readonly state: ReplicaState,
    private readonly marks: WriteMarks,
    private readonly maxWaitMs: number,
    replica: { orm: MikroORM; pool: PreparedStatements },
    primary: { orm: MikroORM; reads: PreparedStatements; position: () => Promise<number> },
    private readonly logger: Logger,
  ) {
    this.position = new PrimaryWalPosition(primary.position);
    const failed = (error: unknown) => this.replicaFailed(error);
    fallBackOnErrors(replica.orm, primary.orm, failed);
    this.source = {
      orm: replica.orm,
      reads: {
        query: <Row>(text: string, values: readonly unknown[]) =>
          replica.pool.query<Row>(text, values).catch((error: unknown) => {
            failed(error);
            return primary.reads.query<Row>(text, values);
          }),
      },
    };
    this.fallbacks.labels('waited-out');
    this.reads.labels('replica');
    this.reads.labels('primary');
    this.metrics = [this.reads, this.fallbacks, ...stateGauges(state)];
    void state.tick();
    this.timer = setInterval(() => void state.tick(), TICK_MS).unref();
  }

  /** After a commit of `organizationId`'s: records where the primary's WAL stands, before the request answers. */
  async wrote(organizationId: string): Promise<void> {
    let position: number;
    try {
      position = await this.position.afterCommit();
    } catch (error) {
      // Without the position the organization's reads cannot be held back: its mark goes to "unknown
      // future" locally, so this instance reads the primary for it, and the failure is logged.
      this.logger.warn({ err: error }, 'could not read the primary\'s WAL position after a write');
      position = Number.MAX_SAFE_INTEGER;
    }
    await this.marks.record(organizationId, position);
  }

  /** Where a read-only request of `organizationId` reads: the replica's source, or undefined for the primary. */
  async choose(organizationId: string): Promise<ReadSource | undefined> {
    const { state } = this;
    if (!state.up) return this.primary('replica-down');
    const needed = await this.marks.lastWrite(organizationId);
    if (needed === 'unknown') return this.primary('redis-down');
    if (needed <= state.replayed) return this.replica();
    const deadline = performance.now() + this.maxWaitMs;
    for (let left = this.maxWaitMs; left > 0; left = deadline - performance.now()) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(WAIT_POLL_MS, left)));
      await state.sample();
      if (!state.up) return this.primary('replica-down');
      if (needed <= state.replayed) return this.replica();
    }
    return this.primary('waited-out');
  }

  status(): ReplicaStatus {
    return this.state.status();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private replica(): ReadSource {
    this.reads.labels('replica').inc();
    return this.source;
  }

  private primary(reason: FallbackReason): undefined {
    this.reads.labels('primary').inc();
    this.fallbacks.labels(reason).inc();
    return undefined;
  }

  /** A statement failed on the replica and ran on the primary instead: counted, and the replica looked at again. */
  private replicaFailed(error: unknown): void {
    this.fallbacks.labels('replica-error').inc();
    void this.state.sample();
    const now = Date.now();
    if (now - this.warnedAt < 10_000) return;
    this.warnedAt = now;
    this.logger.warn({ err: error }, 'a read failed on the replica (DATABASE_READ_URL): the primary answered it');
  }
}

function stateGauges(state: ReplicaState): Metric[] {
  const gauge = (name: string, help: string, value: () => number) =>
    new Gauge({
      name,
      help,
      registers: [],
      collect() {
        this.set(value());
      },
    });
  return [
    gauge('read_replica_up', 'Whether the replica (DATABASE_READ_URL) answers: 0 while every read goes to the primary', () => (state.up ? 1 : 0)),
    gauge('read_replica_lag_bytes', 'WAL the primary wrote that the replica has not replayed (sampled each second)', () => state.lagBytes),
    gauge('read_replica_lag_seconds', 'Age of the last transaction the replica replayed, while it is behind', () => state.status().lagSeconds),
  ];
}

/**
 * A statement of the replica's ORM that fails (the replica stopped, a conflict with recovery cancelled
 * it) runs again on the primary: every SQL statement of a MikroORM connection goes through `execute`.
 * Reads only: nothing writes through the replica's ORM (it is handed to read-only requests).
 */
function fallBackOnErrors(replica: MikroORM, primary: MikroORM, failed: (error: unknown) => void): void {
  const connection = replica.em.getDriver().getConnection();
  const primaryConnection = primary.em.getDriver().getConnection();
  const onReplica = connection.execute.bind(connection);
  connection.execute = (async (query: never, params?: never, method?: never, ctx?: unknown, loggerContext?: never) => {
    try {
      return await onReplica(query, params, method, ctx as never, loggerContext);
    } catch (error) {
      if (ctx) throw error;
      failed(error);
      return primaryConnection.execute(query, params, method, undefined, loggerContext);
    }
  }) as typeof connection.execute;
}

export interface ReadReplicaOptions {
  readonly settings: ReadReplicaSettings;
  readonly primary: MikroORM;
  /** The ORM opened on DATABASE_READ_URL (src/schema/database.ts, without migrations). */
  readonly replica: MikroORM;
  /** The primary's hot reads: where a replica read that fails runs again. */
  readonly primaryReads: PreparedStatements;
  readonly readPoolMax: number;
  readonly timeouts: DatabaseTimeouts;
  readonly redisUrl: string | undefined;
  readonly redisKeyPrefix: string;
  readonly logger: Logger;
}

/** Opens what the replica needs: its hot reads' pool, a probe connection to each database, Redis for the marks. */
export function openReadReplica(options: ReadReplicaOptions): { readReplica: ReadReplica; close(): Promise<void> } {
  const { timeouts, settings, logger } = options;
  const probe = (url: string, name: string) =>
    postgres(url, {
      max: 1,
      idle_timeout: 60,
      connect_timeout: Math.max(1, Math.round(timeouts.connectMs / 1000)),
      backoff: reconnectBackoff,
      connection: { application_name: `event-service ${name}`, statement_timeout: '1000' } as never,
      onnotice: () => undefined,
    });
  const primaryUrl = options.primary.config.get('clientUrl');
  if (!primaryUrl) throw new Error('a read replica needs the primary\'s URL');
  const primaryProbe = probe(primaryUrl, 'wal position');
  const replicaProbe = probe(settings.url, 'replica probe');
  const pool: StatementPool = openStatementPool(options.replica, { max: Math.max(1, options.readPoolMax), timeouts, name: 'replica reads' });
  const redis = options.redisUrl
    ? // Loaded only with REDIS_URL (see createLimits).
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      new (require('ioredis') as typeof import('ioredis')).Redis(options.redisUrl, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: 2_000,
        commandTimeout: 500,
        retryStrategy: (attempt) => Math.min(5_000, 100 * 2 ** attempt),
      })
    : undefined;
  redis?.on('error', () => undefined);
  const marks = new WriteMarks(redis, options.redisKeyPrefix, logger);
  const readReplica = new ReadReplica(
    new ReplicaState(replicaProbe, primaryProbe),
    marks,
    settings.maxWaitMs,
    { orm: options.replica, pool },
    {
      orm: options.primary,
      reads: options.primaryReads,
      position: async () => walPositionOf(((await primaryProbe`select pg_current_wal_insert_lsn()::text as lsn`)[0]?.lsn as string) ?? null),
    },
    logger,
  );
  return {
    readReplica,
    async close() {
      readReplica.stop();
      await Promise.all([
        pool.close(),
        primaryProbe.end({ timeout: 1 }),
        replicaProbe.end({ timeout: 1 }),
        options.replica.close(true),
        redis?.quit().catch(() => redis.disconnect()),
      ]);
    },
  };
}
