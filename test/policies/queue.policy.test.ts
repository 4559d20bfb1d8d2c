import {
  admissionsDue,
  drawOrder,
  estimatedWaitSeconds,
  mergedSettings,
  pollAfterSeconds,
  queueSettingsErrors,
  RATE_WINDOW_MS,
  soldOut,
  stockAllows,
  type AdmissionState,
} from '../../src/modules/queue/queue.policy';

// Pure rules of the on-sale queue (docs/decisions/ D30), the clock and the randomness injected: no database, no HTTP.

/**
 * The admission loop over `durationMs` of an injected clock: a pass every `tickMs` (± `jitterMs`, and
 * none at all during `stalls`: an instance that died), each admitting what admissionsDue allows from
 * a queue that never runs dry. Returns each pass's time and admissions, as the database stores them (ms).
 */
function simulate(
  admitPerMinute: number,
  options: { durationMs: number; tickMs?: number; jitterMs?: number; stalls?: Array<[number, number]> },
): Array<[time: number, count: number]> {
  const { durationMs, tickMs = 500, jitterMs = 0, stalls = [] } = options;
  const passes: Array<[number, number]> = [];
  let paceMs: number | null = null;
  let oldest = 0;
  let inWindow = 0;
  for (let now = 0; now <= durationMs; now += tickMs + (Math.random() * 2 - 1) * jitterMs) {
    if (stalls.some(([from, to]) => now >= from && now < to)) continue;
    const at = Math.round(now);
    while (oldest < passes.length && passes[oldest][0] <= at - RATE_WINDOW_MS) inWindow -= passes[oldest++][1];
    const state: AdmissionState = {
      now: at,
      paceMs,
      admitPerMinute,
      maxSeatsPerAdmission: 4,
      admittedInWindow: inWindow,
      waiting: Number.MAX_SAFE_INTEGER,
      free: null,
      outstanding: 0,
    };
    const { count, paceMs: next } = admissionsDue(state);
    if (count > 0) {
      passes.push([at, count]);
      inWindow += count;
    }
    paceMs = next;
  }
  return passes;
}

/** Admissions in the closed window [start, start + 60 s]. */
const inMinute = (passes: Array<[number, number]>, start: number): number =>
  passes.reduce((sum, [time, count]) => (time >= start && time <= start + 60_000 ? sum + count : sum), 0);

/** The most admissions in any closed 60-second window [t, t + 60 s], t an admission's time. */
const busiestMinute = (passes: Array<[number, number]>): number => Math.max(0, ...passes.map(([start]) => inMinute(passes, start)));

/** The fewest admissions in a closed 60-second window starting at any whole second from `from` to `to`. */
function quietestMinute(passes: Array<[number, number]>, from: number, to: number): number {
  let fewest = Number.POSITIVE_INFINITY;
  for (let start = from; start <= to; start += 1000) fewest = Math.min(fewest, inMinute(passes, start));
  return fewest;
}

describe('admissionsDue: the rate (D30: any 60-second window at most admitPerMinute, at least 90 % of it while entries wait)', () => {
  test.each([1, 7, 60, 600, 5_000])('%i a minute, a pass every 500 ms', (admitPerMinute) => {
    const passes = simulate(admitPerMinute, { durationMs: 185_000 });
    expect(busiestMinute(passes)).toBeLessThanOrEqual(admitPerMinute);
    expect(quietestMinute(passes, 0, 120_000)).toBeGreaterThanOrEqual(Math.floor(admitPerMinute * 0.9));
  });

  test('100,000 a minute: the window holds, the pace keeps up (a pass admits ~830)', () => {
    const passes = simulate(100_000, { durationMs: 185_000, tickMs: 500 });
    expect(Math.max(...passes.map(([, count]) => count))).toBeLessThanOrEqual(1_000);
    expect(busiestMinute(passes)).toBeLessThanOrEqual(100_000);
    expect(quietestMinute(passes, 0, 120_000)).toBeGreaterThanOrEqual(90_000);
  });

  test('passes late and irregular (a busy instance): still within the window, still at least 90 %', () => {
    for (const admitPerMinute of [13, 120, 1_000]) {
      const passes = simulate(admitPerMinute, { durationMs: 185_000, tickMs: 450, jitterMs: 400 });
      expect(busiestMinute(passes)).toBeLessThanOrEqual(admitPerMinute);
      expect(quietestMinute(passes, 0, 120_000)).toBeGreaterThanOrEqual(Math.floor(admitPerMinute * 0.9));
    }
  });

  test('an instance that dies for 4 s: the next one catches up, never past the window', () => {
    const passes = simulate(120, { durationMs: 185_000, stalls: [[30_000, 34_000], [95_000, 99_000]] });
    expect(busiestMinute(passes)).toBeLessThanOrEqual(120);
    expect(quietestMinute(passes, 0, 120_000)).toBeGreaterThanOrEqual(108);
  });

  test('the first pass admits one at once; a pause longer than the catch-up is not made up in a burst', () => {
    expect(admissionsDue({ now: 1_000, paceMs: null, admitPerMinute: 60, maxSeatsPerAdmission: 4, admittedInWindow: 0, waiting: 10, free: null, outstanding: 0 }).count).toBe(1);
    const afterPause = admissionsDue({ now: 600_000, paceMs: 0, admitPerMinute: 60, maxSeatsPerAdmission: 4, admittedInWindow: 0, waiting: 1_000, free: null, outstanding: 0 });
    expect(afterPause.count).toBe(6);
    expect(afterPause.paceMs).toBe(601_000);
  });

  test('never more than wait, the stock or the window allows', () => {
    const base: AdmissionState = { now: 10_000, paceMs: 0, admitPerMinute: 600, maxSeatsPerAdmission: 4, admittedInWindow: 0, waiting: 1_000, free: null, outstanding: 0 };
    expect(admissionsDue(base).count).toBe(51);
    expect(admissionsDue({ ...base, waiting: 3 }).count).toBe(3);
    expect(admissionsDue({ ...base, free: 10, outstanding: 1 }).count).toBe(1);
    expect(admissionsDue({ ...base, admittedInWindow: 595 }).count).toBe(5);
    expect(admissionsDue({ ...base, admittedInWindow: 600 }).count).toBe(0);
  });
});

describe('stockAllows and soldOut (D30: it knows the stock)', () => {
  test('outstanding admissions × maxSeatsPerAdmission never exceed the free seats', () => {
    expect(stockAllows(null, 100, 4)).toBe(Number.POSITIVE_INFINITY);
    expect(stockAllows(8, 0, 4)).toBe(2);
    expect(stockAllows(8, 1, 4)).toBe(1);
    expect(stockAllows(8, 2, 4)).toBe(0);
    expect(stockAllows(9, 2, 4)).toBe(0);
    expect(stockAllows(100, 3, 20)).toBe(2);
    for (let free = 0; free <= 40; free += 1) {
      for (let outstanding = 0; outstanding <= 12; outstanding += 1) {
        const more = stockAllows(free, outstanding, 4);
        if (more > 0 && outstanding > 0) expect((outstanding + more) * 4).toBeLessThanOrEqual(free);
      }
    }
  });

  test('the last seats, fewer than an admission books, go to one admission when none is outstanding (no stall)', () => {
    expect(stockAllows(3, 0, 4)).toBe(1);
    expect(stockAllows(3, 1, 4)).toBe(0);
    expect(stockAllows(0, 0, 4)).toBe(0);
  });

  test('sold out: no seat free and no admission outstanding; no limit never sells out', () => {
    expect(soldOut(0, 0)).toBe(true);
    expect(soldOut(-2, 0)).toBe(true);
    expect(soldOut(0, 1)).toBe(false);
    expect(soldOut(1, 0)).toBe(false);
    expect(soldOut(null, 0)).toBe(false);
  });
});

describe('drawOrder (D30: a random place for everyone who joined before onSaleAt)', () => {
  test('a permutation of the joiners, Fisher–Yates over the injected source', () => {
    const items = ['a', 'b', 'c', 'd', 'e'];
    expect(drawOrder(items, () => 0)).toEqual(['b', 'c', 'd', 'e', 'a']);
    expect(drawOrder(items, (n) => n - 1)).toEqual(items);
    const drawn = drawOrder(Array.from({ length: 1_000 }, (_, index) => index));
    expect([...drawn].sort((a, b) => a - b)).toEqual(Array.from({ length: 1_000 }, (_, index) => index));
    expect(drawOrder([])).toEqual([]);
  });

  test("each early joiner's place is uniform (chi-square over 30,000 draws of the cryptographic source), whatever the join order", () => {
    const joiners = 6;
    const draws = 30_000;
    const counts = Array.from({ length: joiners }, () => new Array<number>(joiners).fill(0));
    for (let draw = 0; draw < draws; draw += 1) {
      drawOrder(Array.from({ length: joiners }, (_, index) => index)).forEach((joiner, place) => (counts[joiner][place] += 1));
    }
    const expected = draws / joiners;
    // χ² with 5 degrees of freedom: above 30.9 with probability 1e-5 when the places are uniform.
    for (const places of counts) expect(places.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0)).toBeLessThan(30.9);
    // The first to join is no likelier to be first than anyone else.
    expect(Math.abs(counts[0][0] - expected)).toBeLessThan(expected * 0.1);
  });
});

describe('what a poll answers', () => {
  const now = new Date('2030-01-01T12:00:00Z');
  test('estimatedWaitSeconds at the queue rate; none without a position', () => {
    expect(estimatedWaitSeconds(1, 60)).toBe(1);
    expect(estimatedWaitSeconds(600, 60)).toBe(600);
    expect(estimatedWaitSeconds(100_000, 100_000)).toBe(60);
    expect(estimatedWaitSeconds(null, 60)).toBeNull();
  });

  test('pollAfterSeconds: until the sale opens before the draw, a tenth of the wait after it, 1 to 30 s; null when not WAITING', () => {
    expect(pollAfterSeconds('WAITING', null, new Date(now.getTime() + 10_000), now)).toBe(10);
    expect(pollAfterSeconds('WAITING', null, new Date(now.getTime() + 3_600_000), now)).toBe(30);
    expect(pollAfterSeconds('WAITING', null, new Date(now.getTime() - 1_000), now)).toBe(1);
    expect(pollAfterSeconds('WAITING', 5, null, now)).toBe(1);
    expect(pollAfterSeconds('WAITING', 200, null, now)).toBe(20);
    expect(pollAfterSeconds('WAITING', 10_000, null, now)).toBe(30);
    for (const status of ['ADMITTED', 'USED', 'EXPIRED', 'SOLD_OUT', 'LEFT']) expect(pollAfterSeconds(status, 5, null, now)).toBeNull();
  });
});

describe('queue settings (D4 errors on queue.<field>)', () => {
  const now = new Date('2030-01-01T12:00:00Z');
  const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
  const stored = mergedSettings(null, { admitPerMinute: 60, opensAt: at(-10), onSaleAt: at(-5) });

  test('defaults: enabled, 10 minutes, 4 seats', () => {
    expect(mergedSettings(null, { admitPerMinute: 60 })).toEqual({ enabled: true, opensAt: null, onSaleAt: null, admitPerMinute: 60, admissionMinutes: 10, maxSeatsPerAdmission: 4 });
    expect(mergedSettings(stored, { enabled: false })).toEqual({ ...stored, enabled: false });
    expect(mergedSettings(stored, { opensAt: null })).toEqual({ ...stored, opensAt: null });
  });

  test('a first queue needs admitPerMinute; opensAt not after onSaleAt; onSaleAt fixed once passed', () => {
    expect(queueSettingsErrors(null, {}, now).map((error) => error.field)).toEqual(['queue.admitPerMinute']);
    expect(queueSettingsErrors(null, { admitPerMinute: 1, opensAt: at(10), onSaleAt: at(5) }, now).map((error) => error.field)).toEqual(['queue.opensAt']);
    expect(queueSettingsErrors(stored, { onSaleAt: at(60) }, now).map((error) => error.field)).toEqual(['queue.onSaleAt']);
    expect(queueSettingsErrors(stored, { onSaleAt: stored.onSaleAt, admitPerMinute: 5 }, now)).toEqual([]);
    const later = mergedSettings(null, { admitPerMinute: 60, onSaleAt: at(30) });
    expect(queueSettingsErrors(later, { onSaleAt: at(60) }, now)).toEqual([]);
  });
});
