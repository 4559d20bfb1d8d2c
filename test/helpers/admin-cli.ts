import { execFile } from 'node:child_process';
import path from 'node:path';
import { serverSecretEnv } from './server-secret';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (undefined when it is not JSON). */
  json: any;
}

const ADMIN = path.resolve(__dirname, '../../dist/doors/cli/admin.js');

/** Runs the compiled admin CLI as an operator would, against the given database. */
export function runCli(databaseUrl: string, args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [ADMIN, ...args], { env: { ...process.env, ...serverSecretEnv(databaseUrl), DATABASE_URL: databaseUrl } }, (error, stdout, stderr) => {
      let json: any;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr, json });
    });
  });
}

/** Polls `check` until it returns true or `timeoutMs` passes; returns how long it took, or undefined. */
export async function within(timeoutMs: number, check: () => Promise<boolean>, intervalMs = 25): Promise<number | undefined> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) return undefined;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * The admin CLI's own entry (`runAdmin`, what `dist/doors/cli/admin.js` runs) called in this process with
 * `env` as its environment: the same arguments, output and exit code as `runCli` without starting a
 * Node process per command. Suites keep a few `runCli` runs to prove the process wiring. Commands
 * read their configuration from `env` only (CommandContext), never from this process's environment.
 */
export async function runAdminInProcess(args: string[], given: NodeJS.ProcessEnv): Promise<CliResult> {
  // The database's server secret, as an operator's CLI has it (SECRET_KEY: '' runs the CLI without one).
  const env = given.SECRET_KEY === undefined && given.WEBHOOK_SECRET_KEY === undefined ? { ...serverSecretEnv(given.DATABASE_URL), ...given } : given;
  // Required here: test files that only spawn the CLI never load its modules.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { runAdmin } = require('../../src/doors/cli/run-admin') as typeof import('../../src/doors/cli/run-admin');
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(args, { env, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  let json: any;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}

/** `runCli(databaseUrl, args)` in this process (see runAdminInProcess). */
export function runCliInProcess(databaseUrl: string, args: string[]): Promise<CliResult> {
  return runAdminInProcess(args, { ...process.env, DATABASE_URL: databaseUrl });
}
