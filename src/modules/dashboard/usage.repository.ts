import type { EntityManager } from '@mikro-orm/postgresql';
import { executeOnOrm } from '../../platform/db/prepared-statements';
import { sqlStatements } from '../../platform/db/sql-statement';
import { countDeleted } from '../../platform/retention/retention-job';
import type { UsageReport } from './dashboard.types';

const sql = sqlStatements(__filename);

export const USAGE_DAYS = 14;
const DAY = 86_400_000;

const USAGE_SINCE = sql.statement<
  { organizationId: string; firstDay: string },
  { api_key_id: string; name: string; prefix: string; day: string; requests: string; rate_limited: string }
>(
  'usageSince',
  `select u.api_key_id, k.name, k.prefix, to_char(u.day, 'YYYY-MM-DD') as day, u.requests, u.rate_limited
       from api_key_usage_daily u join api_keys k on k.id = u.api_key_id
      where u.organization_id = :organizationId and u.day >= :firstDay::date
      order by k.created_at desc, k.id`,
);

/** The last `USAGE_DAYS` UTC days (today included) of an organization's key usage, oldest first. */
export async function usageReport(em: EntityManager, organizationId: string, now = Date.now()): Promise<UsageReport> {
  const days = Array.from({ length: USAGE_DAYS }, (_, index) => new Date(now - (USAGE_DAYS - 1 - index) * DAY).toISOString().slice(0, 10));
  const rows = await executeOnOrm(em, USAGE_SINCE, { organizationId, firstDay: days[0] });
  const index = new Map(days.map((day, position) => [day, position]));
  const keys = new Map<string, UsageReport['keys'][number]>();
  const rateLimited = days.map(() => 0);
  for (const row of rows) {
    const position = index.get(row.day);
    if (position === undefined) continue;
    let key = keys.get(row.api_key_id);
    if (key === undefined) {
      key = { apiKeyId: row.api_key_id, name: row.name, prefix: row.prefix, requests: days.map(() => 0), rateLimited: days.map(() => 0) };
      keys.set(row.api_key_id, key);
    }
    key.requests[position] += Number(row.requests);
    key.rateLimited[position] += Number(row.rate_limited);
    rateLimited[position] += Number(row.rate_limited);
  }
  return { days, keys: [...keys.values()], rateLimited };
}

const DELETE_OLDER_THAN = sql.statement<{ days: number; limit: number }>(
  'deleteUsageOlderThan',
  `with gone as (
         delete from api_key_usage_daily where (api_key_id, day) in (
           select api_key_id, day from api_key_usage_daily where day < (now() at time zone 'UTC')::date - :days::int
            order by day limit :limit for update skip locked)
         returning 1)
       select count(*)::int as deleted from gone`,
);

/** Daily usage counters older than `days` UTC days, oldest first: at most `limit` (usage.retention.ts). */
export function deleteUsageOlderThan(em: EntityManager, days: number, limit: number): Promise<number> {
  return countDeleted(em, DELETE_OLDER_THAN, { days, limit });
}
