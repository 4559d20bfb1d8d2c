import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';

/** The PostgreSQL server tests use: TEST_DATABASE_URL's server, else the local one (trust auth). */
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export type TestDatabaseKind = 'postgres' | 'embedded';

/** Which database this run uses, decided once by global setup (see global-setup.ts). */
export function testDatabaseKind(): TestDatabaseKind {
  return process.env.EVENT_SERVICE_TEST_DB === 'embedded' ? 'embedded' : 'postgres';
}

/**
 * `describe`, or `describe.skip` with the reason printed, for tests that need a real PostgreSQL server
 * (several processes or connections working at once); only ever skips in the embedded fallback.
 */
export function describeOnPostgres(reason: string): jest.Describe {
  if (testDatabaseKind() === 'postgres') return describe;
  process.stdout.write(`skipped on the embedded database: ${reason}\n`);
  return describe.skip;
}

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

export interface TestDatabase {
  name: string;
  url: string;
  /** Pool bounds the ORM must use (the embedded database takes a single ORM connection). */
  pool?: { min: number; max: number };
  drop: () => Promise<void>;
}

/**
 * The embedded fallback: a copy of the migrated template data directory, served by its own PGlite
 * process (PGlite has one database and one session, so test files cannot share one).
 */
async function createEmbeddedTestDatabase(): Promise<TestDatabase> {
  const template = process.env.EVENT_SERVICE_TEST_TEMPLATE_DIR;
  if (!template) throw new Error('EVENT_SERVICE_TEST_TEMPLATE_DIR is not set: run the tests through jest (global setup)');
  const directory = mkdtempSync(path.join(os.tmpdir(), 'event-service-test-db-'));
  cpSync(template, directory, { recursive: true });
  const child = spawn(process.execPath, [path.resolve(__dirname, '../../dist/db/embedded-serve.js'), directory], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const firstLine = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`embedded PostgreSQL exited with code ${code}`)));
  });
  const { url } = JSON.parse(firstLine) as { url: string };
  return {
    name: path.basename(directory),
    url,
    pool: { min: 0, max: 1 },
    drop: async () => {
      child.stdin.end();
      await exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** A fresh database for one test file, copied from the migrated template (fast, isolated). */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (testDatabaseKind() === 'embedded') return createEmbeddedTestDatabase();
  const name = `event_service_test_${randomBytes(6).toString('hex')}`;
  await withAdminClient((client) => client.query(`create database "${name}" template "${templateDatabase()}"`));
  return {
    name,
    url: databaseUrl(name),
    drop: () => withAdminClient((client) => client.query(`drop database if exists "${name}" with (force)`)).then(() => undefined),
  };
}
