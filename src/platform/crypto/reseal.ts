/**
 * Re-sealing stored values under the current server secret (`admin secret rotate`, D24), in batches
 * while the service serves: each batch is one short transaction of the table's repository
 * (webhook-secret.repository.ts, idempotency-key.repository.ts) that locks its rows, skipping those a
 * request holds (never waiting for one), in key order from where the last batch ended. A row skipped
 * because it was locked is found by the next pass; passes repeat until one re-seals nothing.
 */

/** What one batch did: rows re-sealed, rows it could not open (their keys), and where the next batch starts. */
export interface ResealBatch<Cursor> {
  readonly resealed: number;
  readonly unreadable: readonly string[];
  /** The key of the last row the batch locked; undefined when there was none (the end). */
  readonly last: Cursor | undefined;
}

export interface ResealTotals {
  readonly resealed: number;
  /** Keys of rows that open under neither SECRET_KEY nor SECRET_KEY_PREVIOUS (left as they are). */
  readonly unreadable: readonly string[];
}

export const DEFAULT_RESEAL_BATCH = 500;
const MAX_PASSES = 5;

/** Runs `batch` from the start until the end, pass after pass while a pass re-seals something. */
export async function resealInBatches<Cursor>(
  what: string,
  batch: (after: Cursor | undefined) => Promise<ResealBatch<Cursor>>,
  progress: (line: string) => void,
): Promise<ResealTotals> {
  let resealed = 0;
  let unreadable: readonly string[] = [];
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    let passResealed = 0;
    const passUnreadable: string[] = [];
    let after: Cursor | undefined;
    for (;;) {
      const done = await batch(after);
      if (done.last === undefined) break;
      passResealed += done.resealed;
      passUnreadable.push(...done.unreadable);
      after = done.last;
      if (done.resealed > 0) progress(`${what}: ${resealed + passResealed} re-sealed so far`);
    }
    resealed += passResealed;
    unreadable = passUnreadable;
    if (passResealed === 0) break;
  }
  progress(`${what}: ${resealed} re-sealed${unreadable.length > 0 ? `, ${unreadable.length} open under neither secret` : ''}`);
  return { resealed, unreadable };
}
