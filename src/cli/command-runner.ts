import path from 'node:path';
import type { Config } from '../config';
import { openDatabase } from '../db/database';
import { claimDataDir } from '../db/data-dir-lock';
import { startEmbeddedPostgres } from '../db/embedded-postgres';
import { runThroughServer } from './admin-channel';
import type { Command, Options } from './command';

/**
 * Runs one admin command on the server's database: DATABASE_URL when set; otherwise the embedded
 * database in DATA_DIR, through the running server that owns it, or opened here when no server runs.
 */
export async function runCommand(config: Config, command: Command, options: Options, positionals: string[]): Promise<unknown> {
  if (config.databaseUrl) {
    // A mistyped DATABASE_URL must fail, not quietly create a new database the server never reads.
    const orm = await openDatabase({ clientUrl: config.databaseUrl, pool: { min: 0, max: 2 }, ensureDatabase: false });
    try {
      return await command.run(orm.em.fork(), options, positionals);
    } finally {
      await orm.close();
    }
  }
  const claim = await claimDataDir(config.dataDir);
  if (claim.kind === 'server') {
    return runThroughServer({ adminPort: claim.holder.adminPort, token: claim.holder.token ?? '' }, command.name, options, positionals);
  }
  try {
    const embedded = await startEmbeddedPostgres({ dataDir: path.join(config.dataDir, 'pgdata') });
    try {
      const orm = await openDatabase({ clientUrl: embedded.url, pool: embedded.pool });
      try {
        return await command.run(orm.em.fork(), options, positionals);
      } finally {
        await orm.close();
      }
    } finally {
      await embedded.close();
    }
  } finally {
    claim.lock.release();
  }
}
