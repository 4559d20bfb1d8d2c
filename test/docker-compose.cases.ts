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

/** Each service of a Compose file, by name, with its lines (services are the two-space keys under `services:`). */
function servicesOf(compose: string): Map<string, string> {
  const block = compose.slice(compose.indexOf('\nservices:\n'), compose.indexOf('\nvolumes:\n'));
  const services = new Map<string, string>();
  for (const part of block.split(/\n(?= {2}[a-z][a-z0-9-]*:\n)/).slice(1)) services.set(part.slice(2, part.indexOf(':')), part);
  return services;
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
  const services = servicesOf(compose);
  // `docker compose up` (no profile): the app, PostgreSQL and Redis, as before.
  const plain = [...services].filter(([, text]) => !text.includes('profiles:'));
  expect(plain.map(([name]) => name)).toEqual(['app', 'postgres', 'redis']);
  expect(services.get('app')?.match(/condition: service_healthy/g)).toHaveLength(2);
  expect(plain.filter(([, text]) => text.includes('healthcheck:'))).toHaveLength(3);
  expect(compose).toContain('- app-data:/app/data');
  expect(compose).toContain("'127.0.0.1:8443:8443'");
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  expect(dockerfile).toMatch(/^FROM node:20/m);
  expect(dockerfile).toMatch(/^USER node$/m);
  // The V8 flags `npm start` passes (docs/operating.md, Memory).
  expect(dockerfile).toContain('CMD ["node", "--heap-growing-percent=100", "--no-allocation-site-pretenuring", "dist/server.js"]');
  const start = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start;
  expect(start).toBe('node --heap-growing-percent=100 --no-allocation-site-pretenuring dist/server.js');
});

test('the `replicated` profile: a streaming replica, three instances reading it where they may, HAProxy in front (D25)', () => {
  const compose = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
  const services = servicesOf(compose);
  for (const name of ['postgres-replica', 'app-2', 'app-3', 'haproxy']) expect(services.get(name)).toContain('- replicated');
  expect(services.get('postgres-replica')).toContain('./deploy/postgres/replica-entrypoint.sh:/replica-entrypoint.sh:ro');
  const entrypoint = readFileSync(path.join(ROOT, 'deploy/postgres/replica-entrypoint.sh'), 'utf8');
  expect(entrypoint).toMatch(/pg_basebackup -h "\$\{PRIMARY_HOST:-postgres\}" .* -R -X stream/);
  expect(entrypoint).toContain('hot_standby=on');
  expect(services.get('postgres')).toContain('./deploy/postgres/allow-replication.sh:/docker-entrypoint-initdb.d/allow-replication.sh:ro');
  for (const name of ['app-2', 'app-3']) {
    expect(services.get(name)).toContain('DATABASE_READ_URL: postgresql://events:events@postgres-replica:5432/events');
    expect(services.get(name)).toContain('REDIS_URL: redis://redis:6379');
    // One certificate and one server secret for every instance: the app's volume.
    expect(services.get(name)).toContain('- app-data:/app/data');
  }
  const haproxy = services.get('haproxy') ?? '';
  expect(haproxy).toContain('./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro');
  for (const [variable, address] of [['APP_1', 'app'], ['APP_2', 'app-2'], ['APP_3', 'app-3']]) expect(haproxy).toContain(`${variable}: ${address}:8443`);
  const config = readFileSync(path.join(ROOT, 'deploy/haproxy.cfg'), 'utf8');
  expect(config).toContain('option httpchk GET /readyz');
  for (const variable of ['APP_1', 'APP_2', 'APP_3', 'HAPROXY_BIND']) expect(config).toContain(`"\${${variable}}"`);
});
