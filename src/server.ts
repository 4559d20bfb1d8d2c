import 'reflect-metadata';
import { loadConfig } from './foundation/config';
import { ensureDevelopmentTenant } from './development-tenant';
import { openServerDatabase } from './server-database';
import { createLogger } from './foundation/logger';
import { startService, type RunningService } from './service';
import { startupBanner } from './startup-banner';
import { startTracing, stopTracing } from './platform/observability/tracing';

/** How long SIGTERM waits for in-flight requests before closing the remaining connections. */
const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  const config = loadConfig();
  // D27: on when an OTLP endpoint is set (OTEL_* variables); before anything that runs a statement.
  const tracing = startTracing();
  const logger = createLogger(config.logLevel);
  tracing?.attachLogger(logger);
  const database = await openServerDatabase(config, logger);
  logger.info({ database: database.description }, `database: ${database.description}`);
  let service: RunningService;
  try {
    service = await startService(config, database.orm, logger);
    logger.info({ url: service.url }, `listening on ${service.url} (REST /v1/events, GraphQL /graphql)`);
    if (database.embedded) {
      await database.startAdminChannel(logger, service.secrets);
      // Plain text on stderr: the key must reach the developer (the JSON logs redact keys).
      process.stderr.write(startupBanner(config, service.url, await ensureDevelopmentTenant(database.orm)));
    }
  } catch (error) {
    await database.close();
    throw error;
  }

  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    try {
      await service.close(SHUTDOWN_GRACE_MS);
      await database.close();
      await stopTracing();
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  const hint = (error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? ' (another process uses this port: set PORT to another one)' : '';
  process.stderr.write(`fatal: ${error instanceof Error ? error.message : String(error)}${hint}\n`);
  process.exit(1);
});
