import path from 'node:path';
import type { Config } from '../../foundation/config';
import { claimDataDir } from '../../platform/db/data-dir-lock';
import type * as DatabaseModule from '../../schema/database';
import type * as EmbeddedModule from '../../schema/embedded-postgres';
import { runThroughServer } from './admin-channel';
import type { Command, Options } from './command';
import { OPERATOR } from '../../platform/auth/actor';
import { withUnitOfWorkScope } from '../../platform/db/unit-of-work-scope';

// The ORM and PGlite are required only on the path that needs them: through a running server's
// admin channel, the CLI loads neither.
const database = () => require('../../schema/database') as typeof DatabaseModule;
const embeddedPostgres = () => require('../../schema/embedded-postgres') as typeof EmbeddedModule;

async function runOn(settings: DatabaseModule.OpenSettings, config: Config, command: Command, options: Options, positionals: string[]): Promise<unknown> {
  const { orm, migrationsApplied } = await database().openMigratedDatabase(settings);
  try {
    return await command.run(withUnitOfWorkScope(orm.em.fork(), { actor: OPERATOR }), options, positionals, { migrationsApplied, config });
  } finally {
    await orm.close();
  }
}

/**
 * Runs one admin command on the server's database: DATABASE_URL when set; otherwise the embedded
 * database in DATA_DIR, through the running server that owns it, or opened here when no server runs.
 */
export async function runCommand(config: Config, command: Command, options: Options, positionals: string[]): Promise<unknown> {
  if (config.databaseUrl) {
    // A mistyped DATABASE_URL must fail, not quietly create a new database the server never reads.
    return runOn({ clientUrl: config.databaseUrl, pool: { min: 0, max: 2 }, ensureDatabase: false }, config, command, options, positionals);
  }
  const claim = await claimDataDir(config.dataDir);
  if (claim.kind === 'server') {
    return runThroughServer({ adminPort: claim.holder.adminPort, token: claim.holder.token ?? '' }, command.name, options, positionals);
  }
  try {
    const starting = embeddedPostgres().startEmbeddedPostgres({ dataDir: path.join(config.dataDir, 'pgdata') });
    // Load the ORM while PGlite compiles its WebAssembly (on V8's background threads).
    database();
    const embedded = await starting;
    try {
      return await runOn({ clientUrl: embedded.url, pool: embedded.pool }, config, command, options, positionals);
    } finally {
      await embedded.close();
    }
  } finally {
    claim.lock.release();
  }
}
