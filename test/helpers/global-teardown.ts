import { withAdminClient } from './database';

export default async function globalTeardown(): Promise<void> {
  const template = process.env.EVENT_SERVICE_TEST_TEMPLATE;
  if (template) await withAdminClient((client) => client.query(`drop database if exists "${template}" with (force)`));
}
