import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { createRequestListener } from './app';
import type { Exchange } from './http/exchange';
import type { ApiKeyAuthenticator } from './modules/api-key/api-key-authenticator';
import { startAuthentication, type Authentication } from './modules/api-key/authentication';
import type { Config } from './foundation/config';
import { UsageRecorder } from './modules/dashboard/usage-recorder';
import { startApollo } from './doors/graphql/apollo';
import { buildAppSchema } from './schema/graphql-schema';
import { answerClientErrors, malformedRequestError } from './http/client-error';
import { connectionDrainer } from './http/connection-drain';
import { createDualServer } from './http/dual-server';
import { createPlainHttpRefuser } from './http/https-only';
import { loadTlsCredentials } from './http/tls';
import { preparedStatements } from './platform/db/prepared-statements';
import { openStatementPool } from './platform/db/statement-pool';
import { openReadReplica } from './platform/db/replica/read-replica';
import { openReplicaDatabase } from './schema/database';
import { IdempotencyKeyStore } from './platform/idempotency/idempotency-key.store';
import { idempotentRequests } from './http/idempotent-requests';
import { createLimits } from './platform/limits/limits';
import { LIVE_INSTANCES } from './platform/limits/live-instances';
import { LISTENER_APPLICATION_NAME } from './platform/auth/auth-change-listener';
import { compileRoutes } from './doors/rest/rest-executor';
import { loadServerSecrets, type ServerSecrets } from './platform/crypto/server-secrets';
import { ListCursors } from './platform/crypto/list-cursor';
import { TicketCodes } from './platform/crypto/ticket-codes';
import { anyCodelessBooking, issueMissingTicketCodes } from './modules/booking/commands/ticket-code-upkeep';
import { recordOrCheckSecretFingerprint } from './platform/crypto/secret-fingerprint';
import { startWebhooks } from './modules/webhook/webhooks';
import { startHoldExpiry } from './modules/booking/commands/expire-holds';
import { startQueueAdmission } from './modules/queue/commands/admit-queues';
import { sparesConnections } from './platform/db/orm-config';
import { armCrashForTests } from './platform/db/unit-of-work';
import { RetentionJob, type RetentionRule } from './platform/retention/retention-job';
import { FirstStatistics } from './platform/db/first-statistics';
import { idempotencyKeysRetention } from './platform/idempotency/idempotency-retention';
import { webhookMessagesRetention } from './modules/webhook/webhook.retention';
import { credentialsRetention } from './modules/member/credentials.retention';
import { usageRetention } from './modules/dashboard/usage.retention';
import { auditLogRetention } from './modules/audit/audit.retention';

export interface RunningService {
  readonly port: number;
  readonly url: string;
  readonly authenticator: ApiKeyAuthenticator;
  readonly authentication: Authentication;
  readonly usage: UsageRecorder;
  /** The server secret it runs with (D24), checked against the database's fingerprint at start. */
  readonly secrets: ServerSecrets;
  /** The retention job of this instance (tests run it with runOnce()). */
  readonly retention: RetentionJob;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes every connection. */
  close(graceMs?: number): Promise<void>;
}

/** Every table that only grows unless deleted, and what of it is past its time (docs/operating.md, "Retention"). */
function retentionRules(config: Config): RetentionRule[] {
  return [
    idempotencyKeysRetention,
    webhookMessagesRetention(config.retention.webhookMessageMs),
    ...credentialsRetention(config.dashboard.idleTimeoutMs),
    usageRetention(config.retention.usageDays),
    auditLogRetention(),
  ];
}

/** Builds everything that is built once (schema, routes, Apollo, TLS) and listens on config.port. */
/** What a caller may observe of the running service (tests). */
export interface ServiceHooks {
  /** Called with each request once it is finished: the steps of the pipeline it took (src/http/pipeline.ts). */
  readonly onRequestFinished?: (exchange: Exchange) => void;
}

export async function startService(config: Config, orm: MikroORM, logger: Logger, hooks: ServiceHooks = {}): Promise<RunningService> {
  armCrashForTests(config.crashForTests); // test-only (config.ts); undefined in production
  // D24: before anything is served, the secret must be the database's: else refuse (SecretMismatchError),
  // rather than answer 500 at the first retry or webhook whose sealed value this instance cannot open.
  const secrets = loadServerSecrets(config.secret, config.dataDir);
  await recordOrCheckSecretFingerprint(orm.em.fork(), secrets);
  const ticketCodes = TicketCodes.of(secrets);
  // D29: bookings confirmed before ticket codes existed get theirs once the service serves (the migration has no secret).
  const codeless = await anyCodelessBooking(orm.em.fork());
  const schema = buildAppSchema();
  const routes = compileRoutes(schema);
  const graphqlLimits = { maxDepth: config.graphqlMaxDepth, maxCost: config.graphqlMaxCost };
  const apollo = await startApollo(schema, { introspection: config.graphqlIntrospection, explorer: config.graphqlExplorer, limits: graphqlLimits });
  const authentication = await startAuthentication(orm, logger);
  const { authenticator } = authentication;
  // While Redis is down each instance allows its share of a budget: the live instances, counted by
  // their credential listeners' connections to this database (src/platform/limits/live-instances.ts).
  const limits = await createLimits(config, logger, () =>
    orm.em
      .fork()
      .getConnection()
      .execute<Array<{ instances: number }>>(LIVE_INSTANCES.knexText, LIVE_INSTANCES.knexValues({ applicationName: LISTENER_APPLICATION_NAME }))
      .then((rows) => rows[0]?.instances ?? 1),
  );
  const dashboard = config.dashboard;
  const usage = new UsageRecorder(orm, logger, dashboard.usageFlushMs);
  // The embedded database takes one connection: its reads and writes share the ORM's.
  const spares = sparesConnections(orm.config.get('pool'));
  const readPool = config.readPoolMax > 0 && spares ? openStatementPool(orm, { max: config.readPoolMax, timeouts: config.databaseTimeouts }) : undefined;
  const writePool =
    config.writePoolMax > 0 && spares ? openStatementPool(orm, { max: config.writePoolMax, timeouts: config.databaseTimeouts, name: 'writes' }) : undefined;
  // Idempotency-Key claims and answers: commits that need not wait for their own flush (see IdempotencyKeyStore).
  const keyPool =
    config.writePoolMax > 0 && spares
      ? openStatementPool(orm, { max: Math.min(2, config.writePoolMax), timeouts: config.databaseTimeouts, name: 'keys', synchronousCommit: false, customPlans: true })
      : undefined;
  const primaryReads = readPool ?? preparedStatements(orm.em);
  // D25: reads of read-only requests on the replica, as far as it replayed their organization's writes.
  const replica = config.readReplica
    ? openReadReplica({
        settings: config.readReplica,
        primary: orm,
        replica: await openReplicaDatabase({ clientUrl: config.readReplica.url, timeouts: config.databaseTimeouts }),
        primaryReads,
        readPoolMax: config.readPoolMax,
        timeouts: config.databaseTimeouts,
        redisUrl: config.redisUrl,
        redisKeyPrefix: config.redisKeyPrefix,
        logger,
      })
    : undefined;
  const idempotencyKeys = new IdempotencyKeyStore(
    orm,
    config.idempotencyKeyTtlHours,
    secrets.box('idempotent-answer'),
    keyPool,
  );
  const idempotency = idempotentRequests(idempotencyKeys, logger);
  const webhooks = await startWebhooks(config, orm, logger, secrets, writePool);
  const stopHoldExpiry = startHoldExpiry(orm.em, logger, { intervalMs: config.holdExpiryIntervalMs, wake: () => webhooks.runtime.wake() });
  // D30: every instance passes the on-sale queues; one at a time per queue (its row lock).
  const stopQueueAdmission =
    config.queueIntervalMs > 0 ? startQueueAdmission(orm.em, logger, { intervalMs: config.queueIntervalMs, wake: () => webhooks.runtime.wake() }) : async () => {};
  // Every instance runs it; one at a time deletes (an advisory lock), in batches.
  const retention = new RetentionJob(orm, config.retention, retentionRules(config), logger);
  // A table's first statistics as soon as it holds rows, not at autovacuum's next visit (D25).
  const firstStatistics = new FirstStatistics(orm.em, logger);
  const listener = createRequestListener({
    cursors: ListCursors.of(secrets),
    ticketCodes,
    config,
    orm,
    schema,
    routes,
    apollo,
    authenticator,
    limits,
    logger,
    dashboard,
    usage,
    webhooks,
    idempotency,
    reads: primaryReads,
    statements: writePool,
    readReplica: replica?.readReplica,
    written: firstStatistics.committed,
    extraMetrics: retention.metrics,
    onFinished: hooks.onRequestFinished,
  });

  const tls = await loadTlsCredentials(config, logger);
  const secure = https.createServer({ key: tls.key, cert: tls.cert, requireHostHeader: false }, listener);
  secure.keepAliveTimeout = 5_000;
  secure.headersTimeout = 30_000;
  secure.requestTimeout = 60_000;
  answerClientErrors(secure, malformedRequestError);
  const plain = createPlainHttpRefuser();
  const server = createDualServer(secure, plain);
  const drain = connectionDrainer(server, [secure, plain]);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  }).catch(async (error: unknown) => {
    await stopHoldExpiry();
    await stopQueueAdmission();
    await Promise.all([authentication.close(), limits.close(), apollo.stop(), usage.close(), webhooks.close(), readPool?.close(), writePool?.close(), keyPool?.close(), replica?.close()]);
    throw error;
  });
  const port = (server.address() as AddressInfo).port;
  retention.start();
  firstStatistics.start();
  const ticketCodeUpkeep = codeless
    ? issueMissingTicketCodes(orm.em.fork(), ticketCodes)
        .then((given) => logger.info({ given }, 'ticket codes issued to bookings confirmed before D29'))
        .catch((error: unknown) => logger.error({ err: error }, 'issuing ticket codes to earlier bookings failed; the next start tries again'))
    : undefined;

  let closing: Promise<void> | undefined;
  const close = (graceMs = 10_000): Promise<void> => {
    closing ??= (async () => {
      await Promise.all([retention.stop(), firstStatistics.stop(), drain(graceMs), ticketCodeUpkeep]);
      await stopHoldExpiry();
      await stopQueueAdmission();
      idempotencyKeys.close();
      await readPool?.close();
      await writePool?.close();
      await keyPool?.close();
      await replica?.close();
      await webhooks.close();
      await apollo.stop();
      await authentication.close();
      await limits.close();
      await usage.close();
    })();
    return closing;
  };

  return { port, url: `https://localhost:${port}`, authenticator, authentication, usage, secrets, retention, close };
}
