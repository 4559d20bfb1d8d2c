import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { HttpsClient } from './https-client';

export interface ServerProcess {
  readonly port: number;
  readonly client: HttpsClient;
  /** Every line the process wrote to stdout and stderr. */
  readonly logs: string[];
  stop(): Promise<void>;
}

const SERVER = path.resolve(__dirname, '../../dist/server.js');

/** A port nobody listens on right now (PORT=0 would not tell us which port the child took). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** `node dist/server.js` in its own process, on its own port and data directory. */
export async function spawnServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-process-'));
  const child: ChildProcess = spawn(process.execPath, [SERVER], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${logs.join('\n')}`)), 30_000);
    const collect = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        logs.push(line);
        if (line.includes('listening on')) {
          clearTimeout(timer);
          resolve();
        }
      }
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${logs.join('\n')}`));
    });
  });
  const client = new HttpsClient(`https://localhost:${port}`, readFileSync(path.join(dataDir, 'tls', 'localhost.crt'), 'utf8'));
  return {
    port,
    client,
    logs,
    async stop() {
      client.close();
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
