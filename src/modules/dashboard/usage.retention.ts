import { countDeleted, singleTableRule, type RetentionRule } from '../../platform/retention/retention-job';
import { USAGE_DAYS } from './usage.repository';

/**
 * Daily usage counters (api_key_usage_daily) older than `days` UTC days (USAGE_RETENTION_DAYS,
 * default 400). The dashboard shows the last USAGE_DAYS; the setting cannot go below that.
 */
export function usageRetention(days: number): RetentionRule {
  const keep = Math.max(days, USAGE_DAYS);
  return singleTableRule('api_key_usage_daily', (em, limit) =>
    countDeleted(
      em,
      `with gone as (
         delete from api_key_usage_daily where (api_key_id, day) in (
           select api_key_id, day from api_key_usage_daily where day < (now() at time zone 'UTC')::date - ?::int
            order by day limit ? for update skip locked)
         returning 1)
       select count(*)::int as deleted from gone`,
      [keep, limit],
    ),
  );
}
