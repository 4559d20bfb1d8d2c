import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The PostgreSQL server tests use: TEST_DATABASE_URL's server, else the local one (trust auth). */
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
/** One template per test run (set by global setup), so concurrent runs never share one. */
export function templateDatabase(): string {
  const name = process.env.EVENT_SERVICE_TEST_TEMPLATE;
  if (!name) throw new Error('EVENT_SERVICE_TEST_TEMPLATE is not set: run the tests through jest (global setup)');
  return name;
}

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function withAdminClient<T>(run: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A fresh database for one test file, copied from the migrated template (fast, isolated). */
export async function createTestDatabase(): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `event_service_test_${randomBytes(6).toString('hex')}`;
  await withAdminClient((client) => client.query(`create database "${name}" template "${templateDatabase()}"`));
  return {
    name,
    url: databaseUrl(name),
    drop: () => withAdminClient((client) => client.query(`drop database if exists "${name}" with (force)`)).then(() => undefined),
  };
}
