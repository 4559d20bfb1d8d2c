/*
 * Positions in PostgreSQL's write-ahead log (D25, read replicas): where the primary's log stands after
 * a write, and how far a replica has replayed it.
 */

/** A WAL position as PostgreSQL prints it ('16/B374D848') in bytes; exact below 2^53 bytes (9 PB of log). */
export function walPositionOf(text: string | null | undefined): number {
  if (!text) return 0;
  const slash = text.indexOf('/');
  if (slash === -1) throw new Error(`not a WAL position: ${text}`);
  return Number.parseInt(text.slice(0, slash), 16) * 2 ** 32 + Number.parseInt(text.slice(slash + 1), 16);
}

/**
 * The primary's WAL position after commits, asked once for every commit waiting at the time
 * (DataLoader-style): a burst of writes pays one small statement per batch, never under a row lock
 * (it runs after the commit returned, on a connection of its own).
 *
 * Correctness: a commit joins a batch only after it returned, and a batch's statement is sent only
 * after every member joined (a commit that arrives while a statement is in flight waits for the next
 * one), so the position answered is at or past the end of each member's commit record.
 */
export class PrimaryWalPosition {
  private waiting: Array<{ resolve: (position: number) => void; reject: (error: unknown) => void }> = [];
  private running = false;

  /** `ask` reads the primary's position: `select pg_current_wal_insert_lsn()`. */
  constructor(private readonly ask: () => Promise<number>) {}

  /** A position at or past every commit that returned before this call. */
  afterCommit(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (!this.running) this.run();
    });
  }

  private run(): void {
    const batch = this.waiting;
    this.waiting = [];
    this.running = true;
    this.ask()
      .then(
        (position) => batch.forEach((member) => member.resolve(position)),
        (error: unknown) => batch.forEach((member) => member.reject(error)),
      )
      .finally(() => {
        this.running = false;
        if (this.waiting.length > 0) this.run();
      });
  }
}
