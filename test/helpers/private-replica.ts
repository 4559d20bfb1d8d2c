import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { asServerUser, freePort, program, type PrivatePostgres } from './private-postgres';

const run = promisify(execFile);

/** A streaming replica of a private cluster (pg_basebackup -R on loopback), on a port of its own. */
export interface PrivateReplica {
  readonly port: number;
  urlOf(name: string): string;
  /** pg_wal_replay_pause() / pg_wal_replay_resume() on the replica. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Resolves once the replica has replayed everything the primary had written when it was called. */
  caughtUp(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

/** pg_basebackup of `primary` (its initdb allows replication from 127.0.0.1), then started as a hot standby. */
export async function startPrivateReplica(primary: PrivatePostgres): Promise<PrivateReplica> {
  const primaryPort = new URL(primary.adminUrl).port;
  const asRoot = process.getuid?.() === 0;
  const root = mkdtempSync(path.join('/tmp', 'private-replica-'));
  if (asRoot) {
    chmodSync(root, 0o755);
    chownSync(root, Number((await run('id', ['-u', 'postgres'])).stdout.trim()), Number((await run('id', ['-g', 'postgres'])).stdout.trim()));
  }
  const dataDir = path.join(root, 'data');
  const socketDir = path.join(root, 'socket');
  const logFile = path.join(root, 'server.log');
  try {
    await run(...asServerUser(program('pg_basebackup'), ['-h', '127.0.0.1', '-p', primaryPort, '-U', 'postgres', '-D', dataDir, '-R', '-X', 'stream', '--no-sync']));
    await run(...asServerUser('mkdir', ['-p', socketDir]));
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  const port = await freePort();
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${socketDir} -c fsync=off -c hot_standby=on -c max_connections=100 -c shared_buffers=32MB`;
  const start = async () => {
    await run(...asServerUser(program('pg_ctl'), ['-D', dataDir, '-l', logFile, '-o', options, '-w', '-t', '30', 'start']));
  };
  const stop = async () => {
    await run(...asServerUser(program('pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop']));
  };
  await start();
  const urlOf = (name: string) => `postgresql://postgres@127.0.0.1:${port}/${name}`;
  const admin = urlOf('postgres');
  return {
    port,
    urlOf,
    pauseReplay: async () => void (await query(admin, 'select pg_wal_replay_pause()')),
    resumeReplay: async () => void (await query(admin, 'select pg_wal_replay_resume()')),
    async caughtUp(timeoutMs = 20_000) {
      const [{ lsn }] = await query<{ lsn: string }>(primary.adminUrl, 'select pg_current_wal_lsn()::text as lsn');
      const until = Date.now() + timeoutMs;
      for (;;) {
        const [{ behind }] = await query<{ behind: boolean }>(admin, `select coalesce(pg_last_wal_replay_lsn() < '${lsn}'::pg_lsn, true) as behind`);
        if (!behind) return;
        if (Date.now() > until) throw new Error(`the replica did not replay ${lsn} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stop,
    start,
    destroy: async () => {
      await stop().catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
