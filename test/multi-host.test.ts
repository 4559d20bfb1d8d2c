import { spawn } from 'node:child_process';
import path from 'node:path';
import { describeOnPostgres } from './helpers/database';

// Several machines, proven: scripts/multi-host.sh (a primary and its streaming replica,
// Redis, three instances behind HAProxy) under a shorter load than its default: an instance SIGKILLed
// mid-load and the replica's replay paused, then nothing acknowledged lost, exact counts, nothing
// oversold, no stale read of an organization's own writes. The script installs Debian's haproxy when
// missing (as root, as CI runs); its own summary is printed when it fails.
jest.setTimeout(240_000);

const ROOT = path.resolve(__dirname, '..');

function runScript(env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', [path.join(ROOT, 'scripts/multi-host.sh')], { cwd: ROOT, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

describeOnPostgres('the script runs PostgreSQL clusters of its own')('several machines on one host', () => {
  test('an instance killed and replay paused under load: nothing acknowledged lost, exact counts, no oversell, no stale read', async () => {
    const { code, output } = await runScript({
      DURATION_S: '20',
      KILL_AT_S: '5',
      PAUSE_AT_S: '8',
      PAUSE_FOR_S: '8',
      WORKERS_PER_TENANT: '2',
      TENANTS_COUNT: '2',
    });
    if (code !== 0) process.stderr.write(output);
    expect(output).toContain('multi-host: PASS');
    expect(output).toMatch(/stale 0\n/);
    expect(output).toMatch(/SIGKILL to instance/);
    expect(output).toMatch(/replica replay paused/);
    expect(code).toBe(0);
  });
});
