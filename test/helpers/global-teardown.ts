import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { DATABASE_POOL_DIRECTORY, testDatabasePrefix, withAdminClient } from './database';

/** What a test left in the run's temporary directory (global-setup.ts points TMPDIR at it). */
function leftovers(directory: string, ignore: string[]): string[] {
  return readdirSync(directory)
    .map((name) => path.join(directory, name))
    .filter((file) => !ignore.includes(file));
}

/** Every database this run made for its test files (they are reused, not dropped, between files). */
async function dropTestDatabases(): Promise<void> {
  const prefix = testDatabasePrefix();
  const names = await withAdminClient(async (client) =>
    (await client.query<{ datname: string }>('select datname from pg_database where starts_with(datname, $1)', [prefix])).rows.map((row) => row.datname),
  );
  await Promise.all(names.map((name) => withAdminClient((client) => client.query(`drop database if exists "${name}" with (force)`))));
}

export default async function globalTeardown(): Promise<void> {
  const templateDir = process.env.EVENT_SERVICE_TEST_TEMPLATE_DIR;
  const template = process.env.EVENT_SERVICE_TEST_TEMPLATE;
  if (template) {
    await dropTestDatabases();
    await withAdminClient((client) => client.query(`drop database if exists "${template}" with (force)`));
  }

  const runDirectory = process.env.EVENT_SERVICE_TEST_RUN_TMPDIR;
  if (!runDirectory) return;
  const left = leftovers(runDirectory, [...(templateDir ? [path.dirname(templateDir)] : []), path.join(runDirectory, DATABASE_POOL_DIRECTORY)]);
  rmSync(runDirectory, { recursive: true, force: true });
  if (left.length > 0) {
    throw new Error(`tests left ${left.length} temporary file(s) behind (each test must remove what it creates, even when it fails):\n  ${left.join('\n  ')}`);
  }
}
