import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { ADMIN_URL, databaseFingerprint, databaseUrl, withAdminClient } from './database';

const ADMIN_CLI = path.resolve(__dirname, '../../dist/doors/cli/admin.js');

/** Why PostgreSQL cannot be used, or undefined when it answers. */
async function postgresUnavailable(): Promise<string | undefined> {
  const client = new Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? `${(error as NodeJS.ErrnoException).code ?? ''} ${error.message}`.trim() : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Every temporary file of this run goes into one directory of its own: TMPDIR, which os.tmpdir() in
 * the test workers and every process they start (servers, CLI, Chromium) inherit. Global teardown
 * fails the run if a test left anything there, then removes it (see global-teardown.ts).
 */
function useRunTemporaryDirectory(): void {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'event-service-test-run-'));
  process.env.EVENT_SERVICE_TEST_RUN_TMPDIR = directory;
  process.env.TMPDIR = directory;
}

function location(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}`;
}

/**
 * Once per run: decides the database and makes the migrated template each test file copies.
 * PostgreSQL (TEST_DATABASE_URL, else 127.0.0.1:5432) when it answers: a template database copied
 * with CREATE DATABASE … TEMPLATE, each copy then reused by later test files once emptied (see
 * releaseDatabase in database.ts; global teardown drops them all). Otherwise, or with TEST_DATABASE=embedded, the embedded PGlite:
 * a migrated template data directory, copied and served by one PGlite process per test file.
 * TEST_DATABASE=postgres makes an unreachable server an error instead of a fallback.
 * Migrations run in a child process with the compiled CLI (`npm test` builds first), because MikroORM
 * metadata loaded here would leak into an in-band test run (and PGlite cannot run in jest's sandbox).
 */
export default async function globalSetup(): Promise<void> {
  useRunTemporaryDirectory();
  const wanted = process.env.TEST_DATABASE;
  if (wanted !== undefined && wanted !== 'postgres' && wanted !== 'embedded') {
    throw new Error(`TEST_DATABASE must be "postgres" or "embedded", got "${wanted}"`);
  }
  const unavailable = wanted === 'embedded' ? 'TEST_DATABASE=embedded' : await postgresUnavailable();
  if (unavailable && wanted === 'postgres') throw new Error(`TEST_DATABASE=postgres but PostgreSQL at ${location(ADMIN_URL)} is unreachable: ${unavailable}`);

  if (!unavailable) {
    process.stdout.write(`\nTests use PostgreSQL at ${location(ADMIN_URL)} (each test file gets a database in the migrated template's state).\n`);
    process.env.EVENT_SERVICE_TEST_DB = 'postgres';
    const template = `event_service_template_${randomBytes(4).toString('hex')}`;
    process.env.EVENT_SERVICE_TEST_TEMPLATE = template;
    await withAdminClient((client) => client.query(`create database "${template}"`));
    execFileSync(process.execPath, [ADMIN_CLI, 'db', 'migrate'], {
      env: { ...process.env, DATABASE_URL: databaseUrl(template) },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    process.env.EVENT_SERVICE_TEST_TEMPLATE_FINGERPRINT = await databaseFingerprint(databaseUrl(template));
    return;
  }

  process.stdout.write(
    `\nTests use the embedded PostgreSQL (PGlite), one instance per test file: PostgreSQL at ${location(ADMIN_URL)} is not used (${unavailable}).\n`,
  );
  process.env.EVENT_SERVICE_TEST_DB = 'embedded';
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-test-template-'));
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  execFileSync(process.execPath, [ADMIN_CLI, 'db', 'migrate'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  process.env.EVENT_SERVICE_TEST_TEMPLATE_DIR = path.join(dataDir, 'pgdata');
}
