import type { Expanded } from './series-expansion';

/** What pairing reads of an occurrence (the planner's Occurrence has more). */
interface Placed {
  id: string;
  key: number;
  start: number;
}

/*
 * Which existing occurrence becomes which date of the changed series (D28), for the planner. Pure.
 *
 * 1. An occurrence whose key (the local start the series made it for) is still asked for stays that
 *    date: an unchanged rule changes nothing; an EXDATE removes one date; a new timezone keeps each
 *    date at its local time (its instant moves).
 * 2. The rest are paired in order, as many as both sides allow, choosing among the orders the one that
 *    moves the dates least in total: "an hour later" pairs each date with the same day's, "Tuesdays
 *    become Wednesdays" each Tuesday with the next day, and a date removed while all others move
 *    leaves exactly that one over. An occurrence that has started takes no part (it keeps its date),
 *    nor does a date that has passed (it is never made). One edited on its own (detached) or with
 *    bookings does: the planner then skips it, and nothing is made beside it.
 */

export interface Alignment<Occurrence> {
  /** Occurrence and the date it becomes (itself when nothing changes). */
  pairs: Array<[Occurrence, Expanded]>;
  /** Dates no occurrence becomes: to be made (none has started). */
  unpaired: Expanded[];
  /** Occurrences no date is asked of: to be deleted where nothing keeps them. */
  unwanted: Occurrence[];
}

export function alignOccurrences<Occurrence extends Placed>(existing: readonly Occurrence[], desired: readonly Expanded[], now: number): Alignment<Occurrence> {
  const byKey = new Map(desired.map((target) => [target.key, target]));
  const pairs: Array<[Occurrence, Expanded]> = [];
  const unwanted: Occurrence[] = [];
  const taken = new Set<number>();
  const free: Occurrence[] = [];
  for (const occurrence of [...existing].sort((a, b) => a.key - b.key || a.id.localeCompare(b.id))) {
    const target = byKey.get(occurrence.key);
    const started = occurrence.start <= now;
    if (target && !taken.has(target.key) && (started || target.start > now)) {
      pairs.push([occurrence, target]);
      taken.add(target.key);
    } else if (started) {
      unwanted.push(occurrence);
    } else {
      free.push(occurrence);
    }
  }
  const open = desired.filter((target) => !taken.has(target.key) && target.start > now).sort((a, b) => a.key - b.key);
  const matched = orderedPairs(free, open);
  const pairedOccurrences = new Set<Occurrence>();
  const pairedTargets = new Set<Expanded>();
  for (const [occurrence, target] of matched) {
    pairs.push([occurrence, target]);
    pairedOccurrences.add(occurrence);
    pairedTargets.add(target);
  }
  unwanted.push(...free.filter((occurrence) => !pairedOccurrences.has(occurrence)));
  return { pairs, unpaired: open.filter((target) => !pairedTargets.has(target)), unwanted };
}

/**
 * min(|occurrences|, |targets|) pairs that keep both orders, with the least total of |move|. The
 * shorter side is paired whole; which items of the longer one are left over is chosen by dynamic
 * programming over the band of possible offsets: O(short × (long − short + 1)).
 */
function orderedPairs<Occurrence extends Placed>(occurrences: readonly Occurrence[], targets: readonly Expanded[]): Array<[Occurrence, Expanded]> {
  const occurrencesShorter = occurrences.length <= targets.length;
  const shortLength = Math.min(occurrences.length, targets.length);
  const slack = Math.abs(occurrences.length - targets.length);
  if (shortLength === 0) return [];
  const startOf = (shortIndex: number, longIndex: number) =>
    occurrencesShorter
      ? Math.abs(occurrences[shortIndex].start - targets[longIndex].start)
      : Math.abs(occurrences[longIndex].start - targets[shortIndex].start);
  // cost[i][d]: the least total pairing short[0..i] where short[i] pairs with long[i + d] (0 <= d <= slack).
  const width = slack + 1;
  const cost = new Float64Array(shortLength * width);
  const from = new Int32Array(shortLength * width);
  for (let d = 0; d < width; d += 1) {
    cost[d] = startOf(0, d);
    from[d] = -1;
  }
  for (let i = 1; i < shortLength; i += 1) {
    let best = Infinity;
    let bestAt = 0;
    for (let d = 0; d < width; d += 1) {
      // short[i - 1] paired at an offset no greater than d keeps the order.
      const previous = cost[(i - 1) * width + d];
      if (previous < best) {
        best = previous;
        bestAt = d;
      }
      cost[i * width + d] = best + startOf(i, i + d);
      from[i * width + d] = bestAt;
    }
  }
  let d = 0;
  for (let candidate = 1; candidate < width; candidate += 1) if (cost[(shortLength - 1) * width + candidate] < cost[(shortLength - 1) * width + d]) d = candidate;
  const pairs: Array<[Occurrence, Expanded]> = [];
  for (let i = shortLength - 1; i >= 0; i -= 1) {
    pairs.push(occurrencesShorter ? [occurrences[i], targets[i + d]] : [occurrences[i + d], targets[i]]);
    d = from[i * width + d];
  }
  return pairs.reverse();
}
