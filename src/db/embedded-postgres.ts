import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

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

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const db = await PGlite.create(options.dataDir ?? 'memory://');
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
