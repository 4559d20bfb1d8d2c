import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';

/** The project's root: the benchmarks run from dist/bench/ and use what `npm run build` made in dist/. */
export const ROOT = path.resolve(__dirname, '../..');
/** The compiled server the benchmarks start. */
export const SERVER = path.join(ROOT, 'dist/server.js');

/**
 * The admin CLI (`node dist/doors/cli/admin.js …`) against `databaseUrl`, the way an operator makes
 * organizations and keys; its JSON answer. `dataDir` is the server's DATA_DIR: the CLI reads the
 * server secret there (D24: a CLI whose secret is not the database's refuses). The benchmarks import
 * nothing from src/.
 */
export function admin<T>(databaseUrl: string, args: string[], dataDir?: string): T {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'dist/doors/cli/admin.js'), ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl, ...(dataDir === undefined ? {} : { DATA_DIR: dataDir }) },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`admin ${args.join(' ')} failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** A benchmark's organization and a key with every permission, made with the admin CLI. */
export function benchTenant(databaseUrl: string, name: string, dataDir?: string): { organizationId: string; key: string } {
  const organization = admin<{ id: string }>(databaseUrl, ['org', 'create', '--name', name], dataDir);
  const permissions = 'events:read,events:write,bookings:read,bookings:write,members:read,webhooks:read,webhooks:write';
  const { key } = admin<{ key: string }>(databaseUrl, ['key', 'create', '--org', organization.id, '--name', 'bench', '--permissions', permissions], dataDir);
  return { organizationId: organization.id, key };
}

/** The PostgreSQL server the benchmarks make their throw-away databases on (BENCH_ADMIN_URL). */
export const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/** One statement on the admin database (create or drop a benchmark database). */
export async function adminQuery(sql: string): Promise<void> {
  const client = new Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The connection string of database `name` on the admin server. */
export function benchDatabaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
