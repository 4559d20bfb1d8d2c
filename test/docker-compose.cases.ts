import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

// No Docker engine runs here: docker-compose.yml is checked against the Compose specification's JSON
// schema and best-practice rules by dclint, with warnings counted as failures.
const ROOT = path.resolve(__dirname, '..');

function dclint(file: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [path.join(ROOT, 'node_modules/dclint/bin/dclint.cjs'), '--max-warnings', '0', '--color', 'false', file],
      { cwd: ROOT },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
    ),
  );
}

test('docker-compose.yml is a valid Compose file with no lint warnings', async () => {
  const result = await dclint(path.join(ROOT, 'docker-compose.yml'));
  expect(result.output).not.toMatch(/error|warning/);
  expect(result.code).toBe(0);
});

test('the check rejects an invalid Compose file (so it can fail)', async () => {
  const result = await dclint(path.join(__dirname, 'fixtures', 'invalid-compose.yml'));
  expect(result.code).not.toBe(0);
  expect(result.output).toContain('invalid-schema');
});

test('the app is wired to PostgreSQL 15 and Redis, waits for their healthchecks, and keeps its data in a volume', () => {
  const compose = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
  expect(compose).toContain('DATABASE_URL: postgresql://events:events@postgres:5432/events');
  expect(compose).toContain('REDIS_URL: redis://redis:6379');
  expect(compose).toContain('image: postgres:15');
  expect(compose.match(/condition: service_healthy/g)).toHaveLength(2);
  expect(compose.match(/healthcheck:/g)).toHaveLength(3);
  expect(compose).toContain('- app-data:/app/data');
  expect(compose).toContain("'127.0.0.1:8443:8443'");
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  expect(dockerfile).toMatch(/^FROM node:20/m);
  expect(dockerfile).toMatch(/^USER node$/m);
  expect(dockerfile).toContain('CMD ["node", "dist/server.js"]');
});
