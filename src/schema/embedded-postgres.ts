import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type * as DatabaseModule from './database';

/**
 * PostgreSQL compiled to WebAssembly (PGlite), served on a loopback TCP port so MikroORM's pg driver
 * talks to it like to any server. Import this module only from entry points (server, CLI): PGlite's
 * CommonJS build uses dynamic import(), which jest's sandbox refuses.
 */
export interface EmbeddedPostgres {
  /** postgresql://postgres@127.0.0.1:PORT/postgres */
  readonly url: string;
  readonly port: number;
  /**
   * PGlite has a single session: queries of several connections are interleaved message by message,
   * so the ORM must use exactly one connection. It keeps it open (min 1): the socket accepts one
   * connection, and a slot left free while the pool is idle could be taken by another local process.
   */
  readonly pool: { min: number; max: number };
  close(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Directory of the database files; `undefined` keeps everything in memory. */
  dataDir?: string;
  port?: number;
  /** Connections the socket accepts at once (one ORM pool; a test may add an inspection client). */
  maxConnections?: number;
}

/**
 * PostgreSQL's default shared_buffers (128 MB) is sized for a server with RAM of its own; in PGlite it
 * is WebAssembly memory of our process, touched as soon as pages are read. 16 MB holds the working set
 * of a development database and takes most of that off the resident size (docs/performance.md, "Memory").
 */
export const EMBEDDED_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/**
 * Creating a database (initdb) runs a second WebAssembly PostgreSQL next to the first and leaves the
 * process far larger for good (V8 keeps the freed WebAssembly memory mapped). So a new data
 * directory is created and migrated by a short-lived child process, whose memory goes with it; the
 * server only ever opens an existing, migrated one.
 */
async function createInChildProcess(dataDir: string): Promise<void> {
  const script = path.join(__dirname, 'embedded-create.js');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [script, dataDir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`creating the embedded database in ${dataDir} failed: ${stderr.trim() || `exit ${code}`}`)),
    );
  });
}

/** Serves an open PGlite on a loopback port. */
async function serve(db: PGlite, options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const server = new PGLiteSocketServer({
    db,
    host: '127.0.0.1',
    port: options.port ?? 0,
    maxConnections: options.maxConnections ?? 1,
  });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw error;
  }
  const port = Number(server.getServerConn().split(':').pop());
  let closing: Promise<void> | undefined;
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    pool: { min: 1, max: 1 },
    close: () =>
      (closing ??= (async () => {
        await server.stop();
        await db.close();
      })()),
  };
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    // The compiled child script exists only in dist/ (this module never runs under jest).
    if (!existsSync(path.join(options.dataDir, 'PG_VERSION')) && !__filename.endsWith('.ts')) await createInChildProcess(options.dataDir);
  }
  return serve(await PGlite.create(options.dataDir ?? 'memory://', { startParams: EMBEDDED_START_PARAMS }), options);
}

/**
 * Creates the database in `dataDir` in this process and applies the migrations (they too grow the
 * WebAssembly memory for good), then closes it: what the child process of a first start runs.
 */
export async function createEmbeddedDatabase(dataDir: string): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const embedded = await serve(await PGlite.create(dataDir, { startParams: EMBEDDED_START_PARAMS }), {});
  try {
    const { openDatabase } = require('./database') as typeof DatabaseModule;
    await (await openDatabase({ clientUrl: embedded.url, pool: embedded.pool })).close();
  } finally {
    await embedded.close();
  }
}
