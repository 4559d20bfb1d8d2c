import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../foundation/config';
import { claimDataDir } from '../../platform/db/data-dir-lock';
import type * as DatabaseModule from '../../schema/database';
import type * as EmbeddedModule from '../../schema/embedded-postgres';
import { existingServerSecrets, keyFileSecrets, loadServerSecrets, type ServerSecrets } from '../../platform/crypto/server-secrets';
import { checkCliSecret, describeSecretSource, presentedFingerprints, recordedSecret } from '../../platform/crypto/secret-fingerprint';
import { runThroughServer } from './admin-channel';
import type { Command, Options } from './command';
import { OPERATOR } from '../../platform/auth/actor';

// The ORM and PGlite are required only on the path that needs them: through a running server's
// admin channel, the CLI loads neither.
const database = () => require('../../schema/database') as typeof DatabaseModule;
const embeddedPostgres = () => require('../../schema/embedded-postgres') as typeof EmbeddedModule;

/** What a command runs with besides its arguments: the configuration and where its progress goes. */
interface Run {
  readonly config: Config;
  readonly command: Command;
  readonly options: Options;
  readonly positionals: string[];
  readonly progress: (line: string) => void;
}

/**
 * The CLI's server secret (D24), checked before the command touches anything: SECRET_KEY, or the key
 * file in DATA_DIR. A CLI with another secret than the database's, or none while the database has one,
 * refuses. On a database no server has started on yet, a key file is made only when a command needs
 * to seal something, as the server would make it.
 */
async function cliSecrets(em: EntityManager, config: Config): Promise<() => ServerSecrets> {
  const record = await recordedSecret(em);
  const recorded = record?.fingerprint;
  let existing = existingServerSecrets(config.secret, config.dataDir);
  // Without SECRET_KEY, the key file of the first server (same machine, another DATA_DIR) when it is the database's.
  if (record?.keyFile !== undefined && config.secret.key === undefined && !existing?.accepts(record.fingerprint)) {
    existing = keyFileSecrets(record.keyFile, record.fingerprint) ?? existing;
  }
  checkCliSecret(recorded, existing, config.dataDir);
  let secrets = existing;
  return () => (secrets ??= loadServerSecrets(config.secret, config.dataDir));
}

async function runOn(settings: DatabaseModule.OpenSettings, { config, command, options, positionals, progress }: Run): Promise<unknown> {
  const { orm, migrationsApplied } = await database().openMigratedDatabase(settings);
  try {
    const secrets = await cliSecrets(orm.em.fork(), config);
    const context = {
      migrationsApplied,
      config,
      progress,
      get secrets() {
        return secrets();
      },
    };
    return await command.run({ em: orm.em.fork(), actor: OPERATOR }, options, positionals, context);
  } finally {
    await orm.close();
  }
}

/**
 * Runs one admin command on the server's database: DATABASE_URL when set; otherwise the embedded
 * database in DATA_DIR, through the running server that owns it, or opened here when no server runs.
 */
export async function runCommand(run: Run): Promise<unknown> {
  const { config, command, options, positionals } = run;
  if (config.databaseUrl) {
    // A mistyped DATABASE_URL must fail, not quietly create a new database the server never reads.
    return runOn({ clientUrl: config.databaseUrl, pool: { min: 0, max: 2 }, ensureDatabase: false }, run);
  }
  const claim = await claimDataDir(config.dataDir);
  if (claim.kind === 'server') {
    // The server runs the command with its own secret; this CLI's must be one the server accepts.
    const secrets = loadServerSecrets(config.secret, config.dataDir);
    const secret = { fingerprints: presentedFingerprints(secrets), source: describeSecretSource(secrets) };
    return runThroughServer({ adminPort: claim.holder.adminPort, token: claim.holder.token ?? '' }, { command: command.name, options, positionals, secret });
  }
  try {
    const starting = embeddedPostgres().startEmbeddedPostgres({ dataDir: path.join(config.dataDir, 'pgdata') });
    // Load the ORM while PGlite compiles its WebAssembly (on V8's background threads).
    database();
    const embedded = await starting;
    try {
      return await runOn({ clientUrl: embedded.url, pool: embedded.pool }, run);
    } finally {
      await embedded.close();
    }
  } finally {
    claim.lock.release();
  }
}
