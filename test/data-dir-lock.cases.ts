import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { claimDataDir, lockFile } from '../src/platform/db/data-dir-lock';

// The ownership rules of the embedded database's data directory (no PGlite involved here).
let dataDir: string;
let other: ChildProcess;

beforeEach(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-lock-'));
  // Another live process, standing for a CLI command or a server that holds the lock.
  other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
});
afterEach(() => {
  other.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const writeLock = (content: object) => writeFileSync(lockFile(dataDir), JSON.stringify(content));
const readLock = () => JSON.parse(readFileSync(lockFile(dataDir), 'utf8')) as { pid: number; adminPort?: number };

test('a free data directory is taken, advertised, and released', async () => {
  const claim = await claimDataDir(dataDir, 1_000);
  if (claim.kind !== 'owned') throw new Error('expected to own the data directory');
  expect(readLock()).toEqual({ pid: process.pid });
  claim.lock.advertise(4242, 'token');
  expect(readLock()).toEqual({ pid: process.pid, adminPort: 4242, token: 'token' });
  claim.lock.release();
  expect(existsSync(lockFile(dataDir))).toBe(false);
});

test('a lock whose process is gone is stale and taken over at once', async () => {
  const gone = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => gone.once('exit', resolve));
  writeLock({ pid: gone.pid, adminPort: 1, token: 'x' });
  // Were it waited for, the 60 s wait would outlast the test's timeout.
  const claim = await claimDataDir(dataDir, 60_000);
  expect(claim.kind).toBe('owned');
  expect(readLock().pid).toBe(process.pid);
});

test('a live holder without an admin channel (a CLI command) is waited for until it releases', async () => {
  writeLock({ pid: other.pid });
  setTimeout(() => unlinkSync(lockFile(dataDir)), 400);
  const claim = await claimDataDir(dataDir, 10_000);
  expect(claim.kind).toBe('owned');
  expect(readLock().pid).toBe(process.pid);
});

test('a live holder that serves an admin channel is a running server: its channel is returned', async () => {
  const channel = net.createServer((socket) => socket.end());
  await new Promise<void>((resolve) => channel.listen(0, '127.0.0.1', resolve));
  const port = (channel.address() as net.AddressInfo).port;
  writeLock({ pid: other.pid, adminPort: port, token: 'secret' });
  try {
    expect(await claimDataDir(dataDir, 1_000)).toEqual({ kind: 'server', holder: { pid: other.pid, adminPort: port, token: 'secret' } });
    expect(readLock().pid).toBe(other.pid);
  } finally {
    channel.close();
  }
});

test('a live pid whose admin channel does not answer (pid reused after a crash) is taken over after the wait', async () => {
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  writeLock({ pid: other.pid, adminPort: port, token: 'secret' });
  const claim = await claimDataDir(dataDir, 500);
  expect(claim.kind).toBe('owned');
  expect(readLock().pid).toBe(process.pid);
});
