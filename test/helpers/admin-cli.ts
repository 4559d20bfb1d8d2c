import { execFile } from 'node:child_process';
import path from 'node:path';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (undefined when it is not JSON). */
  json: any;
}

const ADMIN = path.resolve(__dirname, '../../dist/cli/admin.js');

/** Runs the compiled admin CLI as an operator would, against the given database. */
export function runCli(databaseUrl: string, args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [ADMIN, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl } }, (error, stdout, stderr) => {
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
