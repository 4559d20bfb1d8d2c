import { singleTableRule, type RetentionRule } from '../../platform/retention/retention-job';
import { deleteUsageOlderThan, USAGE_DAYS } from './usage.repository';

/**
 * Daily usage counters (api_key_usage_daily) older than `days` UTC days (USAGE_RETENTION_DAYS,
 * default 400). The dashboard shows the last USAGE_DAYS; the setting cannot go below that.
 */
export function usageRetention(days: number): RetentionRule {
  const keep = Math.max(days, USAGE_DAYS);
  return singleTableRule('api_key_usage_daily', (em, limit) => deleteUsageOlderThan(em, keep, limit));
}
