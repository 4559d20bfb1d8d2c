import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { AuthContext } from '../../platform/auth/auth-context';
import { executeOnOrm } from '../../platform/db/prepared-statements';
import { sqlStatements } from '../../platform/db/sql-statement';

const sql = sqlStatements(__filename);

/** Adds the counts of an interval (`tallies`: JSON of their rows) to the day's rows of their keys. */
const ADD_COUNTS = sql.statement<{ tallies: string }>(
  'addCounts',
  `insert into api_key_usage_daily (api_key_id, organization_id, day, requests, rate_limited)
         select t.api_key_id, t.organization_id, t.day::date, t.requests, t.rate_limited
           from json_to_recordset(:tallies::json) as t(api_key_id text, organization_id text, day text, requests bigint, rate_limited bigint)
           join api_keys k on k.id = t.api_key_id
         on conflict (organization_id, api_key_id, day) do update set requests = api_key_usage_daily.requests + excluded.requests,
                                                 rate_limited = api_key_usage_daily.rate_limited + excluded.rate_limited`,
);

interface Tally {
  organizationId: string;
  apiKeyId: string;
  day: string;
  requests: number;
  rateLimited: number;
}

/**
 * Requests a day per key, and how many of them were rate limited (the dashboard's usage page). The hot
 * path only bumps a counter in memory; a timer adds the counts to PostgreSQL every `flushMs`, so several
 * instances sum into the same rows. Counts of a crashed process's last interval are lost (usage is a
 * statistic, not billing).
 */
const DAY_MS = 24 * 3600 * 1000;

export class UsageRecorder {
  private tallies = new Map<string, Tally>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger,
    flushMs: number,
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  /** Today (UTC, YYYY-MM-DD) and when it ends, so that a request does not format a date. */
  private today = { day: '', endsAt: 0 };

  /** Counts a finished request made with a key (dashboard sessions are not key usage). */
  recordResponse(auth: AuthContext | undefined, statusCode: number): void {
    if (auth === undefined || auth.apiKeyId === '') return;
    const { apiKeyId } = auth;
    // The UTC day, made again only when it ends (a request's day, without a Date per request).
    const now = Date.now();
    if (now >= this.today.endsAt || now < this.today.endsAt - DAY_MS) {
      const today = new Date(now).toISOString().slice(0, 10);
      this.today = { day: today, endsAt: Date.parse(`${today}T00:00:00.000Z`) + DAY_MS };
    }
    const { day } = this.today;
    const id = `${apiKeyId}|${day}`;
    let tally = this.tallies.get(id);
    if (tally === undefined) {
      tally = { organizationId: auth.organization.id, apiKeyId, day, requests: 0, rateLimited: 0 };
      this.tallies.set(id, tally);
    }
    tally.requests += 1;
    if (statusCode === 429) tally.rateLimited += 1;
  }

  /** Writes what was counted so far; resolves when written (shutdown, tests). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async write(): Promise<void> {
    if (this.tallies.size === 0) return;
    const tallies = [...this.tallies.values()];
    this.tallies = new Map();
    try {
      await executeOnOrm(this.orm.em.fork(), ADD_COUNTS, {
        tallies: JSON.stringify(
          tallies.map((tally) => ({
            api_key_id: tally.apiKeyId,
            organization_id: tally.organizationId,
            day: tally.day,
            requests: tally.requests,
            rate_limited: tally.rateLimited,
          })),
        ),
      });
    } catch (error) {
      this.logger.warn({ err: error instanceof Error ? error.message : String(error), keys: tallies.length }, 'could not write usage counters');
    }
  }
}
