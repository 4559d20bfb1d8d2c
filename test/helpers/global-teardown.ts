import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { withAdminClient } from './database';

/** What a test left in the run's temporary directory (global-setup.ts points TMPDIR at it). */
function leftovers(directory: string, ignore: string): string[] {
  return readdirSync(directory)
    .map((name) => path.join(directory, name))
    .filter((file) => file !== ignore);
}

export default async function globalTeardown(): Promise<void> {
  const templateDir = process.env.EVENT_SERVICE_TEST_TEMPLATE_DIR;
  const template = process.env.EVENT_SERVICE_TEST_TEMPLATE;
  if (template) await withAdminClient((client) => client.query(`drop database if exists "${template}" with (force)`));

  const runDirectory = process.env.EVENT_SERVICE_TEST_RUN_TMPDIR;
  if (!runDirectory) return;
  const left = leftovers(runDirectory, templateDir ? path.dirname(templateDir) : '');
  rmSync(runDirectory, { recursive: true, force: true });
  if (left.length > 0) {
    throw new Error(`tests left ${left.length} temporary file(s) behind (each test must remove what it creates, even when it fails):\n  ${left.join('\n  ')}`);
  }
}
