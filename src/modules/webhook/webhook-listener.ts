import { Client } from 'pg';
import type { Logger } from 'pino';
import { WEBHOOK_CHANNEL } from '../../platform/outbox/outbox';

const RECONNECT_DELAY_MS = 1_000;

/**
 * The worker's LISTEN connection: calls `notified` on every NOTIFY of a committed message and once
 * on each (re)connection, since notifications sent while disconnected are lost. A lost connection is
 * retried every second; meanwhile the worker's poll keeps deliveries going.
 */
export class WebhookListener {
  private client: Client | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly notified: () => void,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({ connectionString: this.url, keepAlive: true, application_name: 'event-service-webhook-worker' });
    const retry = (error: unknown) => {
      if (this.client === client) this.client = undefined;
      client.removeAllListeners();
      client.on('error', () => undefined);
      void client.end().catch(() => undefined);
      if (this.stopped || this.reconnectTimer) return;
      this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'webhook worker lost its LISTEN connection; polling until it reconnects');
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = undefined;
        void this.start();
      }, RECONNECT_DELAY_MS);
      this.reconnectTimer.unref();
    };
    client.on('notification', () => this.notified());
    client.on('error', retry);
    client.on('end', () => retry(new Error('connection ended')));
    try {
      await client.connect();
      await client.query(`listen ${WEBHOOK_CHANNEL}`);
      this.client = client;
      this.notified();
    } catch (error) {
      retry(error);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
