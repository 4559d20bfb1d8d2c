import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlStatements } from '../db/sql-statement';
import { KEY_FILE, shortFingerprint as short, type ServerSecrets } from './server-secrets';

const sql = sqlStatements(__filename);

// Run on the ORM's connection with knex's text (`knexText`), not through the entity manager: never in a transaction it has.
const RECORDED = sql.statement<Record<string, never>, { fingerprint: string; key_file: string | null }>(
  'recordedSecret',
  'select fingerprint, key_file from server_secret where id = 1',
);
/** The first start records the fingerprint; a key file's place is added to a record that has none. */
const RECORD_FINGERPRINT = sql.statement<{ fingerprint: string; keyFile: string | null }>(
  'recordFingerprint',
  `insert into server_secret (id, fingerprint, key_file) values (1, :fingerprint, :keyFile)
     on conflict (id) do update set key_file = coalesce(server_secret.key_file, excluded.key_file)
       where server_secret.fingerprint = excluded.fingerprint and server_secret.key_file is null and excluded.key_file is not null`,
);
const MOVE_FINGERPRINT = sql.statement<{ fingerprint: string }, { replaced: string | null }>(
  'moveFingerprint',
  `insert into server_secret (id, fingerprint) values (1, :fingerprint)
     on conflict (id) do update set fingerprint = excluded.fingerprint, rotated_at = now()
       where server_secret.fingerprint <> excluded.fingerprint
     returning (select fingerprint from server_secret where id = 1) as replaced`,
);

/**
 * A process started with another server secret than the database's (D24): it refuses to start, with
 * this one line, instead of answering 500 at the first retry it cannot open.
 */
export class SecretMismatchError extends Error {}

/** The fingerprint the database records, if a server has started on it. */
export async function recordedSecretFingerprint(em: EntityManager): Promise<string | undefined> {
  return (await recordedSecret(em))?.fingerprint;
}

/** The fingerprint the database records and, when the first server's secret came from a key file, that file. */
export async function recordedSecret(em: EntityManager): Promise<{ fingerprint: string; keyFile: string | undefined } | undefined> {
  const [row] = await em.getConnection().execute<Array<{ fingerprint: string; key_file: string | null }>>(RECORDED.knexText, RECORDED.knexValues({}));
  return row === undefined ? undefined : { fingerprint: row.fingerprint.trim(), keyFile: row.key_file ?? undefined };
}

async function recorded(em: EntityManager): Promise<string | undefined> {
  return recordedSecretFingerprint(em);
}

/** How a process names where its secret came from, in the refusal's line. */
export function describeSecretSource(secrets: ServerSecrets): string {
  return secrets.source.kind === 'file' ? `its key file ${secrets.source.path}, as SECRET_KEY is not set` : secrets.source.name;
}

/** The fingerprints a process presents: its secret's, and SECRET_KEY_PREVIOUS's during a rotation. */
export function presentedFingerprints(secrets: ServerSecrets): string[] {
  return secrets.previous ? [secrets.current.fingerprint, secrets.previous.fingerprint] : [secrets.current.fingerprint];
}

/** The one line of a refusal: which setting, what differs (short fingerprints), where the right value lives. */
export function secretMismatch(recordedFingerprint: string, presented: readonly string[], source: string, refusal: string): SecretMismatchError {
  const previous = presented[1] === undefined ? '' : `, SECRET_KEY_PREVIOUS's ${short(presented[1])}`;
  return new SecretMismatchError(
    `SECRET_KEY does not match the server secret this database was first started with (fingerprint ${short(recordedFingerprint)}; ` +
      `this process has ${short(presented[0])} from ${source}${previous}): set SECRET_KEY to the value the other ` +
      `instances use (an instance started without SECRET_KEY keeps it in DATA_DIR/${KEY_FILE} of the first instance); ${refusal}`,
  );
}

function mismatch(secrets: ServerSecrets, fingerprint: string, refusal: string): SecretMismatchError {
  return secretMismatch(fingerprint, presentedFingerprints(secrets), describeSecretSource(secrets), refusal);
}

/**
 * The server's check at start: records the secret's fingerprint when the database has none (its first
 * start), else refuses unless it is this secret's (or, during a rotation, SECRET_KEY_PREVIOUS's).
 */
export async function recordOrCheckSecretFingerprint(em: EntityManager, secrets: ServerSecrets): Promise<void> {
  // A key file's place is kept beside the fingerprint (see keyFileSecrets).
  const keyFile = secrets.source.kind === 'file' ? path.resolve(secrets.source.path) : null;
  await em.getConnection().execute(RECORD_FINGERPRINT.knexText, RECORD_FINGERPRINT.knexValues({ fingerprint: secrets.current.fingerprint, keyFile }));
  const fingerprint = await recorded(em);
  if (fingerprint !== undefined && !secrets.accepts(fingerprint)) throw mismatch(secrets, fingerprint, 'refusing to start');
}

/**
 * The CLI's check (D24) of the secret it has (`secrets`: SECRET_KEY or its DATA_DIR's key file,
 * undefined when it has neither) against the fingerprint the database records: refuses when it is
 * another secret, or none while the database has one. It records nothing: only a server's first start
 * (or `admin secret rotate`) says which secret a database has.
 */
export function checkCliSecret(recordedFingerprint: string | undefined, secrets: ServerSecrets | undefined, dataDir: string): void {
  if (recordedFingerprint === undefined) return;
  if (secrets === undefined) {
    throw new SecretMismatchError(
      `SECRET_KEY is not set and ${path.join(dataDir, KEY_FILE)} does not exist, but this database has a server secret (fingerprint ` +
        `${short(recordedFingerprint)}): set SECRET_KEY to the value the server instances use (an instance started without ` +
        `SECRET_KEY keeps it in DATA_DIR/${KEY_FILE} of the first instance); refusing to run the command`,
    );
  }
  if (!secrets.accepts(recordedFingerprint)) throw mismatch(secrets, recordedFingerprint, 'refusing to run the command');
}

/** `admin secret rotate`: the database's secret becomes the current one. Returns the fingerprint it replaced, if another. */
export async function moveSecretFingerprint(em: EntityManager, secrets: ServerSecrets): Promise<string | undefined> {
  const [row] = await em
    .getConnection()
    .execute<Array<{ replaced: string | null }>>(MOVE_FINGERPRINT.knexText, MOVE_FINGERPRINT.knexValues({ fingerprint: secrets.current.fingerprint }));
  const replaced = row?.replaced?.trim();
  return replaced === undefined || replaced === secrets.current.fingerprint ? undefined : replaced;
}
