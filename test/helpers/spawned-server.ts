import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { KEY_FILE } from '../../src/platform/crypto/server-secrets';
import { rememberServerSecret, serverSecretEnv, spawnedServerSecret } from './server-secret';

const ROOT = path.resolve(__dirname, '../..');

/** The environment of a spawned server or CLI: this one without database settings, plus `env`. */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'PORT', 'HOST', 'DATA_DIR', 'TLS_CERT_FILE', 'TLS_KEY_FILE', 'REDIS_URL']) delete base[name];
  return { ...base, ...env };
}

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly port: number;
  readonly url: string;
  /** The self-signed certificate the server made in its DATA_DIR. */
  readonly ca: string;
  /** JSON log lines (stdout). */
  readonly logs: string[];
  stderr(): string;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when a log line's msg matches. */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

/**
 * `node dist/server.js` as a real process on a free port (PORT=0; the port is read from its log).
 * Resolves once it serves, including the start-up message on the embedded database.
 */
export async function spawnServer(env: Record<string, string> & { DATA_DIR: string }): Promise<ServerProcess> {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/server.js')], {
    env: childEnv({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  let stderr = '';
  const waiters: Array<() => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    logs.push(line);
    for (const waiter of waiters) waiter();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    for (const waiter of waiters) waiter();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const until = (done: () => boolean, what: string, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => reject(new Error(`server: no ${what} within ${timeoutMs} ms\nstderr: ${stderr}\nlogs: ${logs.join('\n')}`)), timeoutMs);
      waiters.push(check);
      void exit.then(() => setTimeout(check, 50));
      check();
    });
  const messages = () => logs.map((line) => (JSON.parse(line) as { msg?: string }).msg ?? '');
  const waitForLog = (pattern: RegExp, timeoutMs = 30_000) => until(() => messages().some((msg) => pattern.test(msg)), `log ${pattern}`, timeoutMs);

  const embedded = env.DATABASE_URL === undefined;
  await until(
    () => messages().some((msg) => msg.startsWith('listening on')) && (!embedded || /\n\s*$/.test(stderr) && stderr.includes('Event service on')),
    'start',
    60_000,
  ).catch(async (error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  if (env.DATABASE_URL !== undefined) {
    rememberServerSecret(env.DATABASE_URL, spawnedServerSecret(env, () => readFileSync(path.join(env.DATA_DIR, KEY_FILE), 'utf8').trim()));
  }
  const listening = logs.map((line) => JSON.parse(line) as { msg?: string; url?: string }).find((entry) => entry.msg?.startsWith('listening on'));
  const port = Number(new URL(listening!.url!).port);
  return {
    child,
    port,
    url: `https://localhost:${port}`,
    ca: readFileSync(path.join(env.DATA_DIR, 'tls', 'localhost.crt'), 'utf8'),
    logs,
    stderr: () => stderr,
    exit,
    waitForLog,
  };
}

/** `node dist/doors/cli/admin.js …` with `env`; the exit code, stdout and stderr. */
export function runCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const secret = env.SECRET_KEY === undefined && env.WEBHOOK_SECRET_KEY === undefined ? serverSecretEnv(env.DATABASE_URL) : {};
    execFile(process.execPath, [path.join(ROOT, 'dist/doors/cli/admin.js'), ...args], { env: childEnv({ ...secret, ...env }), timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}
