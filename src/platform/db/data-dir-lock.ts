import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * PGlite does not guard its data directory: two processes opening it at once would corrupt it. So the
 * embedded database is owned by one process at a time, recorded in `DATA_DIR/embedded.lock`:
 * `{ pid }` while a CLI (or a starting server) holds it, `{ pid, adminPort, token }` once a server
 * serves the admin channel there. A lock whose process is gone (crash, kill -9) is stale and is
 * taken over.
 */
export interface LockHolder {
  readonly pid: number;
  readonly adminPort?: number;
  readonly token?: string;
}

export interface DataDirLock {
  readonly file: string;
  /** Publishes the admin channel of the server holding the lock. */
  advertise(adminPort: number, token: string): void;
  release(): void;
}

export type DataDirClaim = { kind: 'owned'; lock: DataDirLock } | { kind: 'server'; holder: LockHolder & { adminPort: number } };

export class DataDirBusyError extends Error {}

const POLL_MS = 150;

export function lockFile(dataDir: string): string {
  return path.join(dataDir, 'embedded.lock');
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(file: string): { raw: string; holder?: LockHolder } | undefined {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(raw) as LockHolder;
    return Number.isInteger(parsed.pid) ? { raw, holder: parsed } : { raw };
  } catch {
    return { raw };
  }
}

/** Removes a stale lock, unless it changed since it was read (someone else took it over meanwhile). */
function removeIfUnchanged(file: string, raw: string): void {
  if (readHolder(file)?.raw !== raw) return;
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

/** True when something accepts connections on the port (the server's admin channel is up). */
export function portAnswers(port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function ownedLock(file: string): DataDirLock {
  const write = (content: LockHolder) => {
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(content), { mode: 0o600 });
    renameSync(temporary, file);
  };
  return {
    file,
    advertise: (adminPort, token) => write({ pid: process.pid, adminPort, token }),
    release: () => {
      if (readHolder(file)?.holder?.pid === process.pid) unlinkSync(file);
    },
  };
}

/**
 * Takes the data directory, or finds the running server that owns it. A live holder without an admin
 * channel (a CLI command, a server still starting) is waited for up to `waitMs`; after that its lock
 * is taken as stale (its pid was reused by an unrelated process).
 */
export async function claimDataDir(dataDir: string, waitMs = 20_000): Promise<DataDirClaim> {
  mkdirSync(dataDir, { recursive: true });
  const file = lockFile(dataDir);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      writeFileSync(file, JSON.stringify({ pid: process.pid }), { flag: 'wx', mode: 0o600 });
      return { kind: 'owned', lock: ownedLock(file) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const current = readHolder(file);
    if (!current) continue;
    const holder = current.holder;
    if (holder && (!isAlive(holder.pid) || holder.pid === process.pid)) {
      removeIfUnchanged(file, current.raw);
      continue;
    }
    if (holder?.adminPort && holder.token && (await portAnswers(holder.adminPort))) {
      return { kind: 'server', holder: { ...holder, adminPort: holder.adminPort } };
    }
    if (Date.now() > deadline) {
      removeIfUnchanged(file, current.raw);
      continue;
    }
    await sleep(POLL_MS);
  }
}
