import type { Logger } from 'pino';
import type { PreparedStatements } from '../../platform/db/prepared-statements';
import { WEBHOOK_CHANNEL } from '../../platform/outbox/outbox';

/**
 * The least time between two NOTIFYs of one process. Each is a statement and a commit of its own; in a
 * ticket drop with an endpoint subscribed, one per finished NOTIFY still came to one for every ~6
 * bookings. The other processes' workers hear of new messages at most this much later (their own
 * process's worker is woken at once; every worker also polls).
 */
export const NOTIFY_SPACING_MS = 50;
const NOTIFY = `select pg_notify('${WEBHOOK_CHANNEL}', '')`;

/**
 * Wakes the webhook workers after commits that wrote outbox messages (D18): this process's own
 * worker at once, the other processes' by one NOTIFY per burst. The NOTIFY runs on its own, after the
 * change committed, never inside a change's transaction (there it would take the lock that serializes
 * every commit of the database); while one is on its way, and for NOTIFY_SPACING_MS after it, later
 * wakes are folded into one more. It is sent on `statements` (the pool of one-statement writes, with
 * the bookings of the same turn of the event loop). A lost NOTIFY costs only latency: every worker
 * also polls (WEBHOOK_POLL_INTERVAL_MS).
 */
export class WebhookWake {
  private sending = false;
  private pending = false;

  constructor(
    private readonly statements: PreparedStatements,
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
    void this.statements
      .query(NOTIFY, [])
      .catch((error: unknown) => this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'webhook wake: NOTIFY failed; other workers will poll'))
      .then(() => new Promise((resolve) => setTimeout(resolve, NOTIFY_SPACING_MS).unref()))
      .finally(() => {
        this.sending = false;
        if (this.pending) {
          this.pending = false;
          this.wake();
        }
      });
  }
}
