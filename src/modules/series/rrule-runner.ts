import { Worker } from 'node:worker_threads';
import type { RuleOptions } from './series-recurrence';
import type { Floating } from './series-time';

/*
 * rrule, run on a thread of its own with a deadline (D28: never a hang, never a 500 on any input).
 * rrule stops at UNTIL only when it finds a date after it: a rule whose BY parts never match again
 * (BYMONTH=2;BYMONTHDAY=30) walks period by period to the year 9999, seconds of CPU for FREQ=DAILY.
 * Its dates are asked for here on a worker thread, one rule set at a time; past the deadline the
 * worker is ended (and made again for the next) and the rule refused. A normal rule takes a few
 * milliseconds, and the event loop never waits for rrule. Until the library stops at UNTIL whether
 * or not a later date matches, this stays.
 */

/** How long one expansion may take (a rule of 1,000 dates takes a few milliseconds). */
export const EXPANSION_DEADLINE_MS = 2_000;

/** The rules' dates, asked of the worker: floating times from `start`, stopping as `limits` say. */
export interface RuleDatesRequest {
  rules: RuleOptions[];
  /** DTSTART, a floating time. */
  start: Floating;
  /** Each rule's UNTIL as a floating time (the caller converts the UTC instant), or null. */
  until: Array<Floating | null>;
  /** Dates after this one are counted only up to `beyond` each, then the rule stops. */
  end: Floating;
  beyond: number;
  /** A rule stops after this many dates. */
  cap: number;
}

export type RuleDatesAnswer = { dates: Floating[][] } | { error: string };

// The worker's code: plain JavaScript (the service runs from dist/, its tests from TypeScript sources).
const WORKER_CODE = `
const { parentPort } = require('node:worker_threads');
const { RRule, Weekday } = require(${JSON.stringify(require.resolve('rrule'))});
parentPort.on('message', ({ id, rules, start, until, end, beyond, cap }) => {
  try {
    const dates = rules.map((options, index) => {
      const rule = new RRule({
        ...options,
        byweekday: options.byweekday ? options.byweekday.map(([day, nth]) => new Weekday(day, nth === null ? undefined : nth)) : null,
        dtstart: new Date(start),
        until: until[index] === null ? null : new Date(until[index]),
      });
      const found = [];
      let after = 0;
      rule.all((date) => {
        const time = date.getTime();
        found.push(time);
        if (time > end) after += 1;
        return after < beyond && found.length < cap;
      });
      return found;
    });
    parentPort.postMessage({ id, dates });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});`;

interface Pending {
  readonly id: number;
  readonly request: RuleDatesRequest;
  readonly resolve: (answer: RuleDatesAnswer) => void;
}

let worker: Worker | undefined;
let running: (Pending & { timer: NodeJS.Timeout; worker: Worker }) | undefined;
const queue: Pending[] = [];
let nextId = 1;

function startWorker(): Worker {
  const started = new Worker(WORKER_CODE, { eval: true });
  started.on('message', (message: { id: number } & RuleDatesAnswer) => {
    if (!running || running.id !== message.id) return;
    const { resolve, timer } = running;
    clearTimeout(timer);
    running = undefined;
    resolve('error' in message ? { error: message.error } : { dates: message.dates });
    dispatch();
  });
  const failed = () => {
    // A worker that failed is made again for the next request; the one it was running is refused.
    if (worker === started) worker = undefined;
    if (running?.worker === started) finishRunning({ error: 'the recurrence could not be expanded' });
  };
  started.on('error', failed);
  started.on('exit', failed);
  return started;
}

function finishRunning(answer: RuleDatesAnswer): void {
  if (!running) return;
  const { resolve, timer } = running;
  clearTimeout(timer);
  running = undefined;
  resolve(answer);
  dispatch();
}

function dispatch(): void {
  if (running) return;
  if (queue.length === 0) {
    // An idle worker never keeps the process alive (a server stopping, a test file ending).
    worker?.unref();
    return;
  }
  const next = queue.shift()!;
  worker ??= startWorker();
  const current = worker;
  current.ref();
  const timer = setTimeout(() => {
    // Past the deadline: the worker is ended (rrule cannot be interrupted), a new one serves the rest.
    if (worker === current) worker = undefined;
    finishRunning({ error: `the rule takes longer than ${EXPANSION_DEADLINE_MS / 1000} seconds to expand: its BY parts match too rarely, or never` });
    void current.terminate();
  }, EXPANSION_DEADLINE_MS);
  timer.unref();
  running = { ...next, timer, worker: current };
  current.postMessage({ id: next.id, ...next.request });
}

/** The dates of every rule of `request`, in the order of the rules, or why they could not be had. */
export function ruleDates(request: RuleDatesRequest): Promise<RuleDatesAnswer> {
  return new Promise((resolve) => {
    queue.push({ id: nextId++, request, resolve });
    dispatch();
  });
}
