import { rmSync } from 'node:fs';
import path from 'node:path';
import { withAdminClient } from './database';

export default async function globalTeardown(): Promise<void> {
  const templateDir = process.env.EVENT_SERVICE_TEST_TEMPLATE_DIR;
  if (templateDir) rmSync(path.dirname(templateDir), { recursive: true, force: true });
  const template = process.env.EVENT_SERVICE_TEST_TEMPLATE;
  if (template) await withAdminClient((client) => client.query(`drop database if exists "${template}" with (force)`));
}
