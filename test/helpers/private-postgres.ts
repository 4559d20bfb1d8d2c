import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where Debian puts PostgreSQL 15's programs (the machine's server), else PG_BIN, else the PATH. */
const BIN = process.env.PG_BIN ?? (existsSync('/usr/lib/postgresql/15/bin/initdb') ? '/usr/lib/postgresql/15/bin' : '');
export const program = (name: string) => (BIN ? path.join(BIN, name) : name);

/** A PostgreSQL cluster of a test's own: stopped, started again and frozen without touching anyone else's. */
export interface PrivatePostgres {
  /** postgresql://postgres@127.0.0.1:PORT/postgres */
  readonly adminUrl: string;
  /** The URL of database `name` on this cluster (the ORM creates it when missing). */
  urlOf(name: string): string;
  /** `pg_ctl stop -m immediate`: every connection drops, new ones are refused (a crashed or stopped server). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /**
   * SIGSTOP to every process of the cluster (the postmaster and each backend), the way a stalled disk
   * or a partition looks: connections stay open and nothing answers; new ones are accepted by the
   * kernel and never greeted.
   */
  freeze(): Promise<void>;
  /** SIGCONT to the same processes (and any the postmaster started since). */
  thaw(): Promise<void>;
  /** Stops the cluster and removes its directory. */
  destroy(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** initdb refuses to run as root: as root, the cluster is made and run by the `postgres` user. */
export function asServerUser(file: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [file, args];
  return ['runuser', ['-u', 'postgres', '--', file, ...args]];
}

/** The postmaster's process id and every process whose parent it is (its backends and workers). */
function clusterProcesses(dataDir: string): number[] {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return [];
  const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  const pids = [postmaster];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces, so read after its closing parenthesis.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === postmaster) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

function signalAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // ended meanwhile
    }
  }
}

/** Makes (initdb, trust authentication) and starts a cluster on a free port in a temporary directory. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  // As root the cluster belongs to `postgres`, who cannot enter the test run's private TMPDIR.
  const root = mkdtempSync(path.join(process.getuid?.() === 0 ? '/tmp' : os.tmpdir(), 'private-pg-'));
  const dataDir = path.join(root, 'data');
  const socketDir = path.join(root, 'socket');
  try {
    if (process.getuid?.() === 0) {
      chmodSync(root, 0o755);
      chownSync(root, Number((await run('id', ['-u', 'postgres'])).stdout.trim()), Number((await run('id', ['-g', 'postgres'])).stdout.trim()));
    }
    await run(...asServerUser(program('initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']));
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  const port = await freePort();
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${socketDir} -c fsync=off -c max_connections=100 -c shared_buffers=32MB`;
  await run(...asServerUser('mkdir', ['-p', socketDir]));
  const logFile = path.join(root, 'server.log');
  const start = async () => {
    await run(...asServerUser(program('pg_ctl'), ['-D', dataDir, '-l', logFile, '-o', options, '-w', '-t', '30', 'start']));
  };
  try {
    await start();
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  let frozen: number[] = [];
  const urlOf = (name: string) => `postgresql://postgres@127.0.0.1:${port}/${name}`;
  const thaw = async () => {
    // Children forked while frozen (none can be: the postmaster was stopped) and the frozen ones.
    signalAll([...new Set([...frozen, ...clusterProcesses(dataDir)])], 'SIGCONT');
    frozen = [];
  };
  return {
    adminUrl: urlOf('postgres'),
    urlOf,
    stop: async () => {
      await run(...asServerUser(program('pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop']));
    },
    start,
    freeze: async () => {
      frozen = clusterProcesses(dataDir);
      signalAll(frozen, 'SIGSTOP');
    },
    thaw,
    destroy: async () => {
      await thaw();
      await run(...asServerUser(program('pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop'])).catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
