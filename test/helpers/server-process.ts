import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HttpsClient } from './https-client';
import { spawnServer as spawnServerProcess } from './spawned-server';

export interface ServerProcess {
  readonly port: number;
  readonly client: HttpsClient;
  /** Every line the process wrote to stdout and stderr. */
  readonly logs: string[];
  stop(): Promise<void>;
}

/** `node dist/server.js` in its own process and data directory, with a client that trusts its certificate. */
export async function spawnServer(env: Record<string, string>): Promise<ServerProcess> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-process-'));
  const server = await spawnServerProcess({ ...env, DATA_DIR: dataDir });
  const client = new HttpsClient(server.url, server.ca);
  return {
    port: server.port,
    client,
    get logs() {
      return [...server.logs, ...server.stderr().split('\n').filter(Boolean)];
    },
    async stop() {
      client.close();
      if (server.child.exitCode === null) server.child.kill('SIGTERM');
      await server.exit;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
