import path from 'node:path';
import { loadDashboardSettings, type DashboardSettings } from './dashboard-settings';
import { ConfigError, duration, flag, integer, optional } from './env-values';

export { ConfigError } from './env-values';

/** GRAPHQL_EXPLORER: see src/doors/graphql/explorer.ts. */
export const EXPLORER_KINDS = ['graphiql', 'sandbox', 'off'] as const;
export type ExplorerKind = (typeof EXPLORER_KINDS)[number];

/** Every setting the service reads, parsed and validated once at start-up. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly tlsCertFile: string | undefined;
  readonly tlsKeyFile: string | undefined;
  readonly trustProxy: boolean;
  readonly redisUrl: string | undefined;
  /** Prefix of every Redis key this service writes (several deployments can share one Redis). */
  readonly redisKeyPrefix: string;
  readonly rateLimitPerMinute: number;
  readonly authFailuresPerMinute: number;
  readonly logLevel: string;
  readonly corsOrigins: readonly string[];
  readonly production: boolean;
  /** GraphQL introspection: on outside production, off in production unless GRAPHQL_INTROSPECTION=true. */
  readonly graphqlIntrospection: boolean;
  /** What browsers get on GET /graphql: GraphiQL served locally, Apollo Sandbox (from its CDN), or nothing. */
  readonly graphqlExplorer: ExplorerKind;
  readonly graphqlMaxDepth: number;
  readonly graphqlMaxCost: number;
  /** When set, GET /metrics wants `Authorization: Bearer <METRICS_TOKEN>`. */
  readonly metricsToken: string | undefined;
  /** PUBLIC_URL, dashboard session timeouts, usage flush interval. */
  readonly dashboard: DashboardSettings;
  /** Bounds on every piece of database work, so a stopped or frozen database is a quick 503. */
  readonly databaseTimeouts: DatabaseTimeouts;
  /**
   * REQUEST_DEADLINE_MS (default 8000; 0: none): a request not answered this long after it arrived is
   * answered 503 SERVICE_UNAVAILABLE with Retry-After (src/http/deadline.ts), whatever it waits for.
   */
  readonly requestDeadlineMs: number;
  /**
   * Connections of the hot reads' own pool (DB_READ_POOL_MAX, default 4; 0: the reads share the ORM's
   * pool of 10). An instance opens at most 10 + this + DB_WRITE_POOL_MAX connections to PostgreSQL.
   */
  readonly readPoolMax: number;
  /**
   * A streaming replica for reads (DATABASE_READ_URL, D25): REST GETs and GraphQL queries read it unless
   * their organization wrote something it has not replayed yet (src/platform/db/read-replica.ts).
   */
  readonly readReplica: ReadReplicaSettings | undefined;
  /**
   * Connections of the pool for writes that are one statement (DB_WRITE_POOL_MAX, default 1; 0: they
   * run on the ORM's pool): a booking or a create without Idempotency-Key, pipelined like the reads but
   * apart from them, so that a statement waiting for a row lock never holds up a read queued behind it.
   * One connection by default: concurrent writes queue on it and PostgreSQL runs them back to back, one
   * wake-up of a backend for many statements; spread over more connections, each statement costs more
   * CPU in both processes (docs/performance.md, "Settings chosen by measurement").
   */
  readonly writePoolMax: number;
  /** How long an Idempotency-Key is remembered (at least 24 hours, D17). */
  readonly idempotencyKeyTtlHours: number;
  /**
   * How often each instance stores the holds past their expiresAt as EXPIRED and sends their
   * booking.expired (HOLD_EXPIRY_INTERVAL_MS, default 2,000; D20 asks for 10 s at most). Their seats
   * are free from expiresAt on either way.
   */
  readonly holdExpiryIntervalMs: number;
  /**
   * How often each instance passes the on-sale queues whose sale has opened (QUEUE_INTERVAL_MS,
   * default 500; D30: a sold-out queue's entries are SOLD_OUT within 2 s). 0: this instance admits nobody.
   */
  readonly queueIntervalMs: number;
  readonly webhooks: WebhookSettings;
  /** The server secret (D24): SECRET_KEY and, during a rotation, SECRET_KEY_PREVIOUS. */
  readonly secret: SecretSettings;
  /** What is deleted when, and how often (docs/operating.md, "Retention"). */
  readonly retention: RetentionSettings;
  /**
   * Test-only (never set in production): EVENT_SERVICE_TEST_KILL_BEFORE_COMMIT or
   * EVENT_SERVICE_TEST_KILL_AFTER_COMMIT = an Idempotency-Key. The process SIGKILLs itself when that
   * key's unit of work is about to commit, or has just committed (src/platform/db/unit-of-work.ts).
   */
  readonly crashForTests: { readonly at: 'before-commit' | 'after-commit'; readonly idempotencyKey: string } | undefined;
}

export interface ReadReplicaSettings {
  readonly url: string;
  /** READ_REPLICA_MAX_WAIT_MS: how long a read waits for the replica to replay its organization's last write before the primary answers it. */
  readonly maxWaitMs: number;
}

export interface DatabaseTimeouts {
  /** Opening a connection to PostgreSQL (DB_CONNECT_TIMEOUT_MS). */
  readonly connectMs: number;
  /** Waiting for a free connection in the pool, which under a burst is longer than connecting (DB_ACQUIRE_TIMEOUT_MS). */
  readonly acquireMs: number;
  /** One statement, enforced by PostgreSQL and, for a database that stops answering, by the driver (DB_STATEMENT_TIMEOUT_MS). */
  readonly statementMs: number;
  /** A transaction left idle by its client is ended by PostgreSQL (DB_TRANSACTION_TIMEOUT_MS). */
  readonly idleInTransactionMs: number;
}

/** Connections of the hot reads' own pool unless DB_READ_POOL_MAX says otherwise (src/platform/db/statement-pool.ts). */
export const DEFAULT_READ_POOL_MAX = 4;
/** Connections of the one-statement writes' pool unless DB_WRITE_POOL_MAX says otherwise. */
export const DEFAULT_WRITE_POOL_MAX = 1;

/** A request's answer is due this long after it arrived, at the latest (a 503 then): within 10 s, with slack. */
export const DEFAULT_REQUEST_DEADLINE_MS = 8_000;

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { connectMs: 5_000, acquireMs: 10_000, statementMs: 5_000, idleInTransactionMs: 10_000 };

/** Webhook delivery (D18); see docs/webhooks.md. */
export interface WebhookSettings {
  /** WEBHOOK_WORKER=false: this instance serves only and delivers nothing (others deliver). */
  readonly worker: boolean;
  /** Development and tests only: lets endpoints use http and private, loopback or link-local addresses. */
  readonly allowPrivateNetworks: boolean;
  readonly timeoutMs: number;
  /** Delay before each retry; after the last one fails, the message is failed. */
  readonly retryScheduleMs: readonly number[];
  /** How often the worker looks for due messages without a notification (retries, missed notifications). */
  readonly pollIntervalMs: number;
  /** How long a claimed delivery stays with its worker; a worker that died releases it this late. */
  readonly leaseMs: number;
  readonly concurrency: number;
}

/** About 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (D18), each with ±20 % jitter. */
export const DEFAULT_RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/**
 * Retention: a periodic job of every instance deletes what is past its time, in batches;
 * one instance at a time (src/platform/retention/retention-job.ts).
 */
export interface RetentionSettings {
  /** How often the job runs (RETENTION_INTERVAL_MS, default 5 minutes; each wait jittered ±20 %). */
  readonly intervalMs: number;
  /** Rows deleted per statement, each in its own short transaction (RETENTION_BATCH_SIZE, default 1000). */
  readonly batchSize: number;
  /**
   * A webhook message none of whose deliveries is still pending is kept this long after it was created
   * and after its last attempt (WEBHOOK_MESSAGE_RETENTION, default 30d), then deleted with its
   * deliveries and attempts. A message still being retried (or waiting for a disabled endpoint) is never deleted.
   */
  readonly webhookMessageMs: number;
  /** Daily usage counters older than this many days are deleted (USAGE_RETENTION_DAYS, default 400, at least the 14 the dashboard shows). */
  readonly usageDays: number;
}

export const DEFAULT_RETENTION: RetentionSettings = { intervalMs: 300_000, batchSize: 1000, webhookMessageMs: 30 * 86_400_000, usageDays: 400 };

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const tlsCertFile = optional(env, 'TLS_CERT_FILE');
  const tlsKeyFile = optional(env, 'TLS_KEY_FILE');
  if (Boolean(tlsCertFile) !== Boolean(tlsKeyFile)) {
    throw new ConfigError('TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }
  const logLevel = optional(env, 'LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "${logLevel}"`);
  }
  const production = env.NODE_ENV === 'production';
  const graphqlExplorer = optional(env, 'GRAPHQL_EXPLORER') ?? (production ? 'off' : 'graphiql');
  if (!(EXPLORER_KINDS as readonly string[]).includes(graphqlExplorer)) {
    throw new ConfigError(`GRAPHQL_EXPLORER must be one of ${EXPLORER_KINDS.join(', ')}; got "${graphqlExplorer}"`);
  }
  return {
    port: integer(env, 'PORT', 8443, 0, 65535),
    host: optional(env, 'HOST') ?? '0.0.0.0',
    databaseUrl: optional(env, 'DATABASE_URL'),
    dataDir: path.resolve(optional(env, 'DATA_DIR') ?? '.data'),
    tlsCertFile,
    tlsKeyFile,
    trustProxy: flag(env, 'TRUST_PROXY'),
    redisUrl: optional(env, 'REDIS_URL'),
    redisKeyPrefix: optional(env, 'REDIS_KEY_PREFIX') ?? 'event-service',
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 1000, 1, 10_000_000),
    authFailuresPerMinute: integer(env, 'AUTH_FAILURES_PER_MINUTE', 100, 1, 10_000_000),
    logLevel,
    corsOrigins: (optional(env, 'CORS_ORIGINS') ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    production,
    graphqlIntrospection: optional(env, 'GRAPHQL_INTROSPECTION') === undefined ? !production : flag(env, 'GRAPHQL_INTROSPECTION'),
    graphqlExplorer: graphqlExplorer as ExplorerKind,
    graphqlMaxDepth: integer(env, 'GRAPHQL_MAX_DEPTH', 10, 1, 1000),
    graphqlMaxCost: integer(env, 'GRAPHQL_MAX_COST', 5000, 1, 10_000_000),
    metricsToken: optional(env, 'METRICS_TOKEN'),
    dashboard: loadDashboardSettings(env),
    databaseTimeouts: {
      connectMs: integer(env, 'DB_CONNECT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.connectMs, 100, 600_000),
      acquireMs: integer(env, 'DB_ACQUIRE_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.acquireMs, 100, 600_000),
      statementMs: integer(env, 'DB_STATEMENT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.statementMs, 100, 3_600_000),
      idleInTransactionMs: integer(env, 'DB_TRANSACTION_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.idleInTransactionMs, 100, 3_600_000),
    },
    requestDeadlineMs: integer(env, 'REQUEST_DEADLINE_MS', DEFAULT_REQUEST_DEADLINE_MS, 0, 600_000),
    readPoolMax: integer(env, 'DB_READ_POOL_MAX', DEFAULT_READ_POOL_MAX, 0, 100),
    readReplica: readReplicaSettings(env),
    writePoolMax: integer(env, 'DB_WRITE_POOL_MAX', DEFAULT_WRITE_POOL_MAX, 0, 100),
    idempotencyKeyTtlHours: integer(env, 'IDEMPOTENCY_KEY_TTL_HOURS', 24, 24, 24 * 365),
    holdExpiryIntervalMs: integer(env, 'HOLD_EXPIRY_INTERVAL_MS', 2_000, 100, 10_000),
    queueIntervalMs: integer(env, 'QUEUE_INTERVAL_MS', 500, 0, 1_500),
    webhooks: webhookSettings(env),
    secret: secretSettings(env),
    retention: {
      intervalMs: integer(env, 'RETENTION_INTERVAL_MS', DEFAULT_RETENTION.intervalMs, 100, 86_400_000),
      batchSize: integer(env, 'RETENTION_BATCH_SIZE', DEFAULT_RETENTION.batchSize, 1, 100_000),
      webhookMessageMs: duration(env, 'WEBHOOK_MESSAGE_RETENTION', DEFAULT_RETENTION.webhookMessageMs, 1000, 3650 * 86_400_000),
      usageDays: integer(env, 'USAGE_RETENTION_DAYS', DEFAULT_RETENTION.usageDays, 14, 36_500),
    },
    crashForTests: crashForTests(env),
  };
}

function readReplicaSettings(env: NodeJS.ProcessEnv): ReadReplicaSettings | undefined {
  const url = optional(env, 'DATABASE_READ_URL');
  const maxWaitMs = integer(env, 'READ_REPLICA_MAX_WAIT_MS', 250, 0, 60_000);
  if (url === undefined) return undefined;
  if (optional(env, 'DATABASE_URL') === undefined) throw new ConfigError('DATABASE_READ_URL needs DATABASE_URL (the primary its replica follows)');
  return { url, maxWaitMs };
}

function crashForTests(env: NodeJS.ProcessEnv): Config['crashForTests'] {
  const before = optional(env, 'EVENT_SERVICE_TEST_KILL_BEFORE_COMMIT');
  const after = optional(env, 'EVENT_SERVICE_TEST_KILL_AFTER_COMMIT');
  if (before !== undefined && after !== undefined) {
    throw new ConfigError('EVENT_SERVICE_TEST_KILL_BEFORE_COMMIT and EVENT_SERVICE_TEST_KILL_AFTER_COMMIT are exclusive');
  }
  if (before !== undefined) return { at: 'before-commit', idempotencyKey: before };
  if (after !== undefined) return { at: 'after-commit', idempotencyKey: after };
  return undefined;
}

/**
 * The server secret (D24) seals what the service must decrypt later (webhook signing secrets, stored
 * idempotent answers); see src/platform/crypto/server-secrets.ts. Unset: a key file in DATA_DIR.
 */
export interface SecretSettings {
  /** SECRET_KEY, or WEBHOOK_SECRET_KEY (its old name). */
  readonly key: string | undefined;
  /** Which of the two names gave `key`, for the messages that name it. */
  readonly keySetting: 'SECRET_KEY' | 'WEBHOOK_SECRET_KEY';
  /** SECRET_KEY_PREVIOUS: the value being rotated away from; still opens what it sealed. */
  readonly previous: string | undefined;
}

function secretSettings(env: NodeJS.ProcessEnv): SecretSettings {
  const key = optional(env, 'SECRET_KEY');
  const oldName = optional(env, 'WEBHOOK_SECRET_KEY');
  if (key !== undefined && oldName !== undefined && key !== oldName) {
    throw new ConfigError('SECRET_KEY and WEBHOOK_SECRET_KEY (its old name) are both set, to different values: keep only SECRET_KEY');
  }
  const previous = optional(env, 'SECRET_KEY_PREVIOUS');
  if (previous !== undefined && key === undefined && oldName === undefined) {
    throw new ConfigError('SECRET_KEY_PREVIOUS is set without SECRET_KEY: a rotation sets SECRET_KEY to the new value and SECRET_KEY_PREVIOUS to the old one');
  }
  return { key: key ?? oldName, keySetting: key === undefined && oldName !== undefined ? 'WEBHOOK_SECRET_KEY' : 'SECRET_KEY', previous };
}

function webhookSettings(env: NodeJS.ProcessEnv): WebhookSettings {
  const timeoutMs = integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000);
  const schedule = optional(env, 'WEBHOOK_RETRY_SCHEDULE_MS');
  if (schedule !== undefined && !/^\d+(,\d+)*$/.test(schedule.replace(/\s/g, ''))) {
    throw new ConfigError(`WEBHOOK_RETRY_SCHEDULE_MS must be comma-separated milliseconds, got "${schedule}"`);
  }
  const leaseMs = integer(env, 'WEBHOOK_LEASE_MS', timeoutMs + 20_000, 1, 3_600_000);
  if (leaseMs <= timeoutMs) throw new ConfigError(`WEBHOOK_LEASE_MS (${leaseMs}) must be longer than WEBHOOK_TIMEOUT_MS (${timeoutMs})`);
  return {
    worker: optional(env, 'WEBHOOK_WORKER') === undefined ? true : flag(env, 'WEBHOOK_WORKER'),
    allowPrivateNetworks: flag(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'),
    timeoutMs,
    retryScheduleMs: schedule === undefined ? DEFAULT_RETRY_SCHEDULE_MS : schedule.replace(/\s/g, '').split(',').map(Number),
    pollIntervalMs: integer(env, 'WEBHOOK_POLL_INTERVAL_MS', 1_000, 10, 60_000),
    leaseMs,
    concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 16, 1, 256),
  };
}
