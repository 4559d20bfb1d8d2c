import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/schema/database';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from './helpers/database';
import { createTenant } from './helpers/factories';
import { expectGracefulShutdownDuringBurst, expectLateRequestOnAcceptedConnectionAnswered, fillEvents } from './helpers/graceful-shutdown';
import { spawnServer, type ServerProcess } from './helpers/spawned-server';

jest.setTimeout(180_000);

// With PostgreSQL available, the DATABASE_URL server (as in production); the same two cases on the
// embedded database run in test/zero-config.test.ts on its servers (a first start of the embedded
// database costs seconds of CPU). Without PostgreSQL, here on the embedded one.
const variants = testDatabaseKind() === 'postgres' ? ['DATABASE_URL'] : ['embedded database'];

describe.each(variants)('SIGTERM during a burst of requests (%s)', (variant) => {
  let dataDir: string;
  let database: TestDatabase | undefined;
  let server: ServerProcess;
  let key: string;

  const start = async () => {
    server = variant === 'DATABASE_URL' ? await spawnServer({ DATA_DIR: dataDir, DATABASE_URL: database!.url }) : await spawnServer({ DATA_DIR: dataDir });
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-shutdown-'));
    if (variant === 'DATABASE_URL') {
      database = await createTestDatabase();
      const orm = await openDatabase({ clientUrl: database.url, pool: database.pool });
      key = (await createTenant(orm)).key;
      await orm.close(true);
      await start();
    } else {
      await start();
      key = /\b(nk_test_[A-Za-z0-9]{32})\b/.exec(server.stderr())![1];
    }
    // 100 events so that every list request reads a full page.
    await fillEvents(server, key, 100);
  });

  // The cases' checks live in helpers/graceful-shutdown.ts (zero-config runs them on the embedded
  // database too): a case that stopped checking anything fails here.
  beforeEach(() => expect.hasAssertions());

  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('accepted requests all finish with 2xx, new connections are refused, the process exits 0', async () => {
    await expectGracefulShutdownDuringBurst(server, key, variant === 'DATABASE_URL' ? 150 : 60);
    expect(server.child.exitCode).toBe(0);
  });

  test('a connection accepted before SIGTERM that sends its request later is still answered (with Connection: close)', async () => {
    await start();
    await expectLateRequestOnAcceptedConnectionAnswered(server, key);
    expect(server.child.exitCode).toBe(0);
  });
});
