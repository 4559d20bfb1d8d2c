import { startEmbeddedPostgres } from './embedded-postgres';

/**
 * `node dist/schema/embedded-serve.js [DATA_DIR]`: serves an embedded PostgreSQL (in memory without a
 * directory) on a free loopback port, prints `{"port":…,"url":…}` on one line, and stops when stdin
 * closes or on SIGTERM. The test suite runs one per test file when no PostgreSQL server is reachable
 * (PGlite cannot run inside jest's sandbox, and a child process dies with the run that started it).
 */
async function main(): Promise<void> {
  const embedded = await startEmbeddedPostgres({ dataDir: process.argv[2], maxConnections: 4 });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void embedded.close().then(() => process.exit(0));
  };
  process.stdin.on('end', stop);
  process.stdin.on('close', stop);
  process.stdin.resume();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdout.write(`${JSON.stringify({ port: embedded.port, url: embedded.url })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`embedded PostgreSQL failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
