import type { BatchResult, RetentionRule } from '../../platform/retention/retention-job';

/**
 * Webhook messages past their retention (WEBHOOK_MESSAGE_RETENTION, docs/operating.md "Retention"): a message created more
 * than `retentionMs` ago none of whose deliveries is PENDING (D18: still being retried, leased by a
 * worker, or waiting for a disabled endpoint) nor attempted within `retentionMs` (a redelivery). Its
 * deliveries and attempts go with it. A message whose endpoints were all deleted has no delivery left
 * and goes once it is that old.
 *
 * Three statements in the job's transaction. The batch's messages are locked first (SKIP LOCKED);
 * then their finished deliveries are deleted, each checked again as it is deleted (a redelivery that
 * committed meanwhile made it PENDING: it stays); then only the messages left without any delivery
 * are deleted. A redelivery that comes after its delivery was deleted finds nothing to requeue.
 */
export function webhookMessagesRetention(retentionMs: number): RetentionRule {
  return {
    table: 'webhook_messages',
    async deleteBatch(em, limit): Promise<BatchResult> {
      const batch = await em.execute<Array<{ id: string }>>(
        `select m.id from webhook_messages m
          where m.created_at < now() - ? * interval '1 millisecond'
            and not exists (select 1 from webhook_deliveries d where d.message_id = m.id
                             and (d.status = 'PENDING' or d.last_attempt_at >= now() - ? * interval '1 millisecond'))
          order by m.created_at limit ? for update of m skip locked`,
        [retentionMs, retentionMs, limit],
      );
      if (batch.length === 0) return { deleted: {}, more: false };
      const ids = `{${batch.map((row) => row.id).join(',')}}`;
      const [deliveries] = await em.execute<Array<{ deliveries: number; attempts: number }>>(
        `with gone as (delete from webhook_deliveries where message_id = any(?::text[]) and status <> 'PENDING' returning id)
         select count(*)::int as deliveries,
                (select count(*)::int from webhook_attempts a where a.delivery_id in (select id from gone)) as attempts
           from gone`,
        [ids],
      );
      const [messages] = await em.execute<Array<{ deleted: number }>>(
        `with gone as (
           delete from webhook_messages m where m.id = any(?::text[])
              and not exists (select 1 from webhook_deliveries d where d.message_id = m.id)
           returning 1)
         select count(*)::int as deleted from gone`,
        [ids],
      );
      return {
        deleted: { webhook_messages: messages.deleted, webhook_deliveries: deliveries.deliveries, webhook_attempts: deliveries.attempts },
        more: batch.length >= limit,
      };
    },
  };
}
