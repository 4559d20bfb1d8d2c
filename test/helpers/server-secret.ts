/**
 * The server secret each test database's servers run with (D24), so that the admin CLI the tests run
 * against that database has it too, as an operator's CLI must: a CLI whose secret is not the
 * database's refuses to run. Servers register theirs once started; a database handed to another test
 * file forgets it (its fingerprint is gone with its rows).
 */
const secrets = new Map<string, string>();

export function rememberServerSecret(databaseUrl: string, secret: string): void {
  secrets.set(databaseUrl, secret);
}

export function forgetServerSecret(databaseUrl: string): void {
  secrets.delete(databaseUrl);
}

/** `{ SECRET_KEY }` of the servers started on this database, or nothing when none has started. */
export function serverSecretEnv(databaseUrl: string | undefined): { SECRET_KEY?: string } {
  const secret = databaseUrl === undefined ? undefined : secrets.get(databaseUrl);
  return secret === undefined ? {} : { SECRET_KEY: secret };
}

/** The secret a spawned server runs with: its SECRET_KEY (or old name), else the key file it made in its DATA_DIR. */
export function spawnedServerSecret(env: Record<string, string | undefined>, readKeyFile: () => string): string {
  return env.SECRET_KEY ?? env.WEBHOOK_SECRET_KEY ?? readKeyFile();
}
