import { randomBytes, timingSafeEqual } from 'node:crypto';
import net from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../../foundation/config';
import { AppError, type AppErrorArguments, type ErrorCode, type ErrorDetails } from '../../foundation/errors/app-error';
import type { Options } from './command';
import { COMMANDS } from './commands';
import { OPERATOR } from '../../platform/auth/actor';
import type { ServerSecrets } from '../../platform/crypto/server-secrets';
import { secretMismatch } from '../../platform/crypto/secret-fingerprint';

/**
 * While a server owns the embedded database, the admin CLI cannot open it (PGlite allows one process)
 * and must not share the server's database connection (PGlite has one session, so two clients'
 * statements would interleave). Instead the CLI hands its parsed command to the server over this
 * loopback channel, and the server runs it on its own ORM. The channel's port and a random token are
 * published in the data directory's lock file (mode 0600): reading the data directory is what
 * authorizes a caller, as with the database files themselves.
 */
interface ChannelRequest extends CommandRequest {
  token: string;
}

/** A command for the server to run, and the CLI's server secret (D24), which must be one the server accepts. */
export interface CommandRequest {
  command: string;
  options: Options;
  positionals: string[];
  /** The fingerprints of the CLI's SECRET_KEY (and SECRET_KEY_PREVIOUS), and where its secret came from. */
  secret: { fingerprints: string[]; source: string };
}

type ChannelResponse =
  | { ok: true; result: unknown }
  | { ok: false; error: { code?: ErrorCode; message: string; details?: ErrorDetails } };

const MAX_REQUEST_BYTES = 64 * 1024;
const REQUEST_TIMEOUT_MS = 30_000;

export interface AdminChannel {
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

function sameToken(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What the server runs the CLI's commands with. */
export interface ChannelServer {
  readonly orm: MikroORM;
  readonly config: Config;
  readonly logger: Logger;
  readonly secrets: ServerSecrets;
}

async function answer({ orm, config, logger, secrets }: ChannelServer, token: string, line: string): Promise<ChannelResponse> {
  let request: ChannelRequest;
  try {
    request = JSON.parse(line) as ChannelRequest;
  } catch {
    return { ok: false, error: { message: 'malformed request' } };
  }
  if (!sameToken(request.token, token)) return { ok: false, error: { message: 'invalid admin channel token' } };
  const command = COMMANDS.find((candidate) => candidate.name === request.command);
  if (!command) return { ok: false, error: { message: `unknown command "${request.command}"` } };
  // The CLI started with another secret is refused as it would be on the database itself (D24).
  const [presented] = request.secret?.fingerprints ?? [];
  if (typeof presented !== 'string' || !secrets.accepts(presented)) {
    const source = typeof request.secret?.source === 'string' ? request.secret.source : 'SECRET_KEY';
    const refusal = secretMismatch(secrets.current.fingerprint, request.secret?.fingerprints ?? [''], source, 'refusing to run the command');
    return { ok: false, error: { message: refusal.message } };
  }
  try {
    const progress = (message: string) => logger.info({ command: command.name }, message);
    // The server applied its migrations at start: there is never one left for `db migrate` here.
    const result = await command.run({ em: orm.em.fork(), actor: OPERATOR }, request.options ?? {}, request.positionals ?? [], {
      migrationsApplied: [],
      config,
      secrets,
      progress,
    });
    logger.info({ command: command.name }, 'admin command run for the CLI');
    return { ok: true, result };
  } catch (error) {
    if (error instanceof AppError) return { ok: false, error: { code: error.code, message: error.message, details: error.details } };
    return { ok: false, error: { message: error instanceof Error ? error.message : String(error) } };
  }
}

/** Runs the CLI's commands on the server's ORM with the server's configuration and secret. */
export async function startAdminChannel(owner: ChannelServer): Promise<AdminChannel> {
  const token = randomBytes(24).toString('hex');
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());
    let buffer = '';
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      if (buffer.length > MAX_REQUEST_BYTES) return socket.destroy();
      const newline = buffer.indexOf('\n');
      if (newline === -1) return;
      socket.removeAllListeners('data');
      void answer(owner, token, buffer.slice(0, newline)).then((response) => socket.end(`${JSON.stringify(response)}\n`));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** Runs a command in the server that owns the embedded database; its errors come back as thrown here. */
export function runThroughServer(target: { adminPort: number; token: string }, request: CommandRequest): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: target.adminPort });
    let buffer = '';
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy(new Error('the server did not answer the admin command in time')));
    socket.once('connect', () => socket.write(`${JSON.stringify({ token: target.token, ...request })}\n`));
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
    });
    socket.once('error', (error) => reject(new Error(`cannot reach the server's admin channel: ${error.message}`)));
    socket.once('end', () => {
      let response: ChannelResponse;
      try {
        response = JSON.parse(buffer) as ChannelResponse;
      } catch {
        return reject(new Error('the server closed the admin channel without an answer (is it stopping?)'));
      }
      if (response.ok) return resolve(response.result);
      const { code, message, details } = response.error;
      // The server's error, passed through as it was raised there.
      reject(code ? new AppError(...([code, message, details] as unknown as AppErrorArguments)) : new Error(message));
    });
  });
}
