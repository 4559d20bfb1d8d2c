import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { databaseUrl, withAdminClient } from './database';

/**
 * Once per run: a template database with every migration applied, which each test file copies.
 * Migrations run in a child process with the compiled CLI (`npm test` builds first), because MikroORM
 * metadata loaded here would leak into an in-band test run.
 */
export default async function globalSetup(): Promise<void> {
  const template = `event_service_template_${randomBytes(4).toString('hex')}`;
  process.env.EVENT_SERVICE_TEST_TEMPLATE = template;
  await withAdminClient((client) => client.query(`create database "${template}"`));
  execFileSync(process.execPath, [path.resolve(__dirname, '../../dist/cli/admin.js'), 'db', 'migrate'], {
    env: { ...process.env, DATABASE_URL: databaseUrl(template) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
