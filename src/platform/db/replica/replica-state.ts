import type postgres from 'postgres';
import { walPositionOf } from './wal-position';

/** How long a probe of the replica (or the primary's position) may take before the replica counts as down. */
const PROBE_TIMEOUT_MS = 1_000;

/** What /readyz shows of the replica (`details.readReplica`). */
export interface ReplicaStatus {
  readonly state: 'up' | 'down';
  /** Since when it has not answered (ISO), while down. */
  readonly since?: string;
  /** WAL the primary wrote that the replica has not replayed yet. */
  readonly lagBytes: number;
  /** Age of the last transaction it replayed, while it is behind (0 when caught up). */
  readonly lagSeconds: number;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * What this instance knows of the replica: how far it has replayed the primary's WAL (a lower bound:
 * replay only moves forward), whether it answers, and its lag. Sampled on a connection of its own, once
 * a second in the background and every few milliseconds while reads wait for it (coalesced: readers
 * waiting together share one probe).
 */
export class ReplicaState {
  /** Replayed WAL position; Infinity for a database that is not in recovery (DATABASE_READ_URL naming a primary). */
  replayed = 0;
  up = false;
  downSince: number | undefined = Date.now();
  lagBytes = 0;
  lagSeconds = 0;
  private sampling: Promise<void> | undefined;

  constructor(
    private readonly replicaProbe: postgres.Sql,
    private readonly primaryProbe: postgres.Sql,
  ) {}

  /** Samples the replay position now (or joins the sample in flight). */
  sample(): Promise<void> {
    return (this.sampling ??= this.probe().finally(() => (this.sampling = undefined)));
  }

  /** The background tick: the replay position and the primary's, for the lag. */
  async tick(): Promise<void> {
    await this.sample();
    if (!this.up || this.replayed === Infinity) {
      this.lagBytes = 0;
      return;
    }
    try {
      const [row] = await withTimeout(this.primaryProbe`select pg_current_wal_lsn()::text as lsn`, PROBE_TIMEOUT_MS);
      this.lagBytes = Math.max(0, walPositionOf(row?.lsn as string) - this.replayed);
    } catch {
      // The primary's trouble is /readyz's database check; the lag is only unknown meanwhile.
    }
  }

  status(): ReplicaStatus {
    const lag = { lagBytes: this.lagBytes, lagSeconds: this.lagBytes > 0 ? this.lagSeconds : 0 };
    if (this.up) return { state: 'up', ...lag };
    return { state: 'down', since: new Date(this.downSince ?? Date.now()).toISOString(), ...lag };
  }

  private async probe(): Promise<void> {
    try {
      const [row] = await withTimeout(
        this.replicaProbe`select pg_is_in_recovery() as recovery, pg_last_wal_replay_lsn()::text as lsn,
          coalesce(extract(epoch from now() - pg_last_xact_replay_timestamp()), 0)::float8 as lag`,
        PROBE_TIMEOUT_MS,
      );
      if (row?.recovery === false) {
        // Not a replica (a primary, or a promoted one): everything it has is current.
        this.replayed = Infinity;
      } else {
        this.replayed = Math.max(this.replayed, walPositionOf(row?.lsn as string | null));
        this.lagSeconds = Number(row?.lag ?? 0);
      }
      this.up = true;
      this.downSince = undefined;
    } catch {
      this.up = false;
      this.downSince ??= Date.now();
    }
  }
}
