import 'reflect-metadata';
import { loadConfig } from './config';
import { openDatabase } from './db/database';
import { createLogger } from './logger';
import { startService } from './service';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  if (!config.databaseUrl) {
    logger.fatal('DATABASE_URL is not set: point it at PostgreSQL, e.g. postgresql://postgres@127.0.0.1:5432/events');
    process.exitCode = 1;
    return;
  }
  const orm = await openDatabase({ clientUrl: config.databaseUrl });
  const service = await startService(config, orm, logger);
  logger.info({ url: service.url }, `listening on ${service.url} (REST /v1/events, GraphQL /graphql)`);

  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    await service.close();
    await orm.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`fatal: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
