import 'reflect-metadata';
import { createEmbeddedDatabase } from './embedded-postgres';

/**
 * `node dist/schema/embedded-create.js DIR`: creates an embedded database in DIR, migrates it and exits. Run by
 * startEmbeddedPostgres for a new data directory, so that initdb's memory leaves with this process.
 */
createEmbeddedDatabase(process.argv[2] ?? '').then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
