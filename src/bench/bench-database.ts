import { Client } from 'pg';

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
