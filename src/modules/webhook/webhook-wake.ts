import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { WEBHOOK_CHANNEL } from '../../platform/outbox/outbox';

/**
 * Wakes the webhook workers after commits that wrote outbox messages (issue 19): this process's own
 * worker at once, the other processes' by one NOTIFY per burst. The NOTIFY runs on its own, after the
 * change committed, never inside a change's transaction (there it would take the lock that serializes
 * every commit of the database); while one is on its way, later wakes are folded into one more.
 * A lost NOTIFY costs only latency: every worker also polls (WEBHOOK_POLL_INTERVAL_MS).
 */
export class WebhookWake {
  private sending = false;
  private pending = false;

  constructor(
    private readonly orm: MikroORM,
    private readonly wakeLocal: () => void,
    private readonly logger: Logger,
    /** False on the single-connection embedded database: nobody else listens, its worker polls. */
    private readonly notifyOthers: boolean,
  ) {}

  wake(): void {
    this.wakeLocal();
    if (!this.notifyOthers) return;
    if (this.sending) {
      this.pending = true;
      return;
    }
    this.sending = true;
    void this.orm.em
      .getConnection()
      .execute(`select pg_notify('${WEBHOOK_CHANNEL}', '')`)
      .catch((error: unknown) => this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'webhook wake: NOTIFY failed; other workers will poll'))
      .finally(() => {
        this.sending = false;
        if (this.pending) {
          this.pending = false;
          this.wake();
        }
      });
  }
}
