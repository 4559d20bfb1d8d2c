import type { RetentionRule } from '../../platform/retention/retention-job';
import { deleteMessagesPastRetention } from './webhook.repository';

/**
 * Webhook messages past their retention (WEBHOOK_MESSAGE_RETENTION, docs/operating.md "Retention"): a message created more
 * than `retentionMs` ago none of whose deliveries is PENDING (D18: still being retried, leased by a
 * worker, or waiting for a disabled endpoint) nor attempted within `retentionMs` (a redelivery). Its
 * deliveries and attempts go with it. A message whose endpoints were all deleted has no delivery left
 * and goes once it is that old.
 *
 * In batches of deleteMessagesPastRetention (webhook.repository.ts).
 */
export function webhookMessagesRetention(retentionMs: number): RetentionRule {
  return {
    table: 'webhook_messages',
    deleteBatch: (em, limit) => deleteMessagesPastRetention(em, retentionMs, limit),
  };
}
