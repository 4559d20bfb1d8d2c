import 'reflect-metadata';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderSqlSnapshots, SQL_SNAPSHOT_DIR } from './sql-snapshots';

// Regenerates the committed sql/*.sql (npm run sql:snapshots); a test fails when one drifts.
const snapshots = renderSqlSnapshots();
mkdirSync(SQL_SNAPSHOT_DIR, { recursive: true });
for (const name of readdirSync(SQL_SNAPSHOT_DIR)) {
  if (name.endsWith('.sql') && !snapshots.has(name)) rmSync(path.join(SQL_SNAPSHOT_DIR, name));
}
for (const [name, content] of snapshots) writeFileSync(path.join(SQL_SNAPSHOT_DIR, name), content);
process.stdout.write(`wrote ${snapshots.size} files in ${SQL_SNAPSHOT_DIR}\n`);
