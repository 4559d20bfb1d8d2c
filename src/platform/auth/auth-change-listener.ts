import { Client } from 'pg';
import type { Logger } from 'pino';
import { AUTH_CHANGE_CHANNEL, parseAuthChange, type AuthChange } from './auth-change';

export const LISTENER_APPLICATION_NAME = 'event-service-auth-listener';

export interface AuthChangeListenerOptions {
  /** How often the connection proves it is alive (a silently dead socket delivers no notification). */
  heartbeatMs: number;
  /** The listener counts as live only if its last heartbeat answered within this window. */
  liveWindowMs: number;
  /** Reconnect delays: doubling from the first to the second. */
  backoffMs: readonly [number, number];
}

const DEFAULTS: AuthChangeListenerOptions = { heartbeatMs: 250, liveWindowMs: 600, backoffMs: [100, 5_000] };

/**
 * A dedicated PostgreSQL connection that LISTENs for credential changes published by any process
 * (the admin CLI, another instance). `onChange(undefined)` means "forget everything": sent after a
 * reconnect, because notifications published while disconnected are lost.
 */
export class AuthChangeListener {
  private client: Client | undefined;
  private lastHeartbeatAt = 0;
  private heartbeatInFlight = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private attempt = 0;
  private stopped = false;
  private outageLogged = false;
  private readonly options: AuthChangeListenerOptions;

  constructor(
    private readonly connectionString: string,
    private readonly onChange: (change: AuthChange | undefined) => void,
    private readonly logger: Logger,
    options: Partial<AuthChangeListenerOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** Connects once (waiting for it), then keeps itself connected in the background until stop(). */
  async start(): Promise<void> {
    this.heartbeat = setInterval(() => this.beat(), this.options.heartbeatMs);
    this.heartbeat.unref();
    await this.connect();
  }

  /** True while changes are known to arrive: connected, and the last heartbeat is recent. */
  isLive(): boolean {
    return this.client !== undefined && Date.now() - this.lastHeartbeatAt < this.options.liveWindowMs;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({
      connectionString: this.connectionString,
      application_name: LISTENER_APPLICATION_NAME,
      keepAlive: true,
      connectionTimeoutMillis: 2_000,
      query_timeout: 2_000,
    });
    client.on('notification', (message) => {
      if (message.channel === AUTH_CHANGE_CHANNEL) this.onChange(parseAuthChange(message.payload));
    });
    client.on('error', (error) => this.drop(client, error));
    client.on('end', () => this.drop(client, new Error('connection ended')));
    try {
      await client.connect();
      await client.query(`listen ${AUTH_CHANGE_CHANNEL}`);
    } catch (error) {
      this.drop(client, error);
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.lastHeartbeatAt = Date.now();
    this.attempt = 0;
    // Anything may have changed while no notification could reach us.
    this.onChange(undefined);
    if (this.outageLogged) this.logger.info('auth change listener reconnected; key cache back to its long TTL');
    this.outageLogged = false;
  }

  private beat(): void {
    const client = this.client;
    if (client === undefined || this.heartbeatInFlight) return;
    this.heartbeatInFlight = true;
    client
      .query('select 1')
      .then(() => {
        if (this.client === client) this.lastHeartbeatAt = Date.now();
      })
      .catch((error: unknown) => this.drop(client, error))
      .finally(() => {
        this.heartbeatInFlight = false;
      });
  }

  /** Forget a broken connection and schedule the next attempt (once per broken client). */
  private drop(client: Client, error: unknown): void {
    if (this.stopped) return;
    const wasCurrent = this.client === client;
    if (wasCurrent) this.client = undefined;
    else if (this.client !== undefined || this.reconnectTimer !== undefined) return;
    client.removeAllListeners('end');
    client.removeAllListeners('error');
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
    if (!this.outageLogged) {
      this.logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'auth change listener lost its database connection; key cache falls back to a short TTL until it reconnects',
      );
      this.outageLogged = true;
    }
    const [first, max] = this.options.backoffMs;
    const delay = Math.min(max, first * 2 ** this.attempt);
    this.attempt += 1;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connect();
    }, delay);
    this.reconnectTimer.unref();
  }
}

/** The part of a pooled `pg` client the same-connection listener uses. */
interface NotifyingClient {
  query(text: string): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  once(event: 'end' | 'error', listener: () => void): unknown;
}

/** The pool of a knex client (MikroORM's connection): what listenOnOwnConnection borrows from it. */
export interface ConnectionPool {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
}

/**
 * On a database reached through one connection (the embedded one), no connection can be spared for
 * LISTEN, and none is needed: every change is made through that connection (the admin CLI hands its
 * commands to the running server), and PostgreSQL tells a session its own notifications when it
 * commits. So the connection itself listens, and changes are live while it stays open (a replaced
 * connection does not listen: the short TTL applies again).
 */
export async function listenOnOwnConnection(pool: ConnectionPool, onChange: (change: AuthChange | undefined) => void): Promise<{ isLive(): boolean }> {
  const client = (await pool.acquireConnection()) as NotifyingClient;
  let live = false;
  try {
    await client.query(`listen ${AUTH_CHANGE_CHANNEL}`);
    live = true;
  } finally {
    await pool.releaseConnection(client);
  }
  client.on('notification', (message) => {
    if (message.channel === AUTH_CHANGE_CHANNEL) onChange(parseAuthChange(message.payload));
  });
  const ended = () => {
    live = false;
  };
  client.once('end', ended);
  client.once('error', ended);
  return { isLive: () => live };
}
