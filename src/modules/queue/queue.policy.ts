import { randomInt } from 'node:crypto';
import type { FieldError } from '../../foundation/errors/app-error';

/*
 * Every rule of the on-sale queue (D30) as pure functions of loaded state, the clock given: its
 * settings, the admission's count per pass (rate, window, stock), the draw of the early joiners,
 * the hints a poll answers. The SQL that keeps the queue is in queue.repository.ts and
 * queue-admission.repository.ts; the booking's gate in queue-gate.ts.
 */

export const ADMIT_PER_MINUTE = { min: 1, max: 100_000 } as const;
export const ADMISSION_MINUTES = { min: 1, max: 60, default: 10 } as const;
export const MAX_SEATS_PER_ADMISSION = { min: 1, max: 20, default: 4 } as const;

/** An event's queue as stored (events.queue_*). Null times: open, or on sale, as soon as it is enabled. */
export interface QueueSettings {
  readonly enabled: boolean;
  readonly opensAt: Date | null;
  readonly onSaleAt: Date | null;
  readonly admitPerMinute: number;
  readonly admissionMinutes: number;
  readonly maxSeatsPerAdmission: number;
}

/** What a create or an update asks of the queue (absent fields keep the stored value, or the default). */
export interface QueueSettingsRequest {
  readonly enabled?: boolean | null;
  readonly opensAt?: Date | null;
  readonly onSaleAt?: Date | null;
  readonly admitPerMinute?: number | null;
  readonly admissionMinutes?: number | null;
  readonly maxSeatsPerAdmission?: number | null;
}

/**
 * The settings after `request` over `stored` (null: the event has no queue yet). A queue set up by
 * the request is enabled unless it says otherwise; `opensAt` and `onSaleAt` may be cleared (null).
 */
export function mergedSettings(stored: QueueSettings | null, request: QueueSettingsRequest): QueueSettings {
  return {
    enabled: request.enabled ?? stored?.enabled ?? true,
    opensAt: request.opensAt !== undefined ? request.opensAt : (stored?.opensAt ?? null),
    onSaleAt: request.onSaleAt !== undefined ? request.onSaleAt : (stored?.onSaleAt ?? null),
    admitPerMinute: request.admitPerMinute ?? stored?.admitPerMinute ?? 0,
    admissionMinutes: request.admissionMinutes ?? stored?.admissionMinutes ?? ADMISSION_MINUTES.default,
    maxSeatsPerAdmission: request.maxSeatsPerAdmission ?? stored?.maxSeatsPerAdmission ?? MAX_SEATS_PER_ADMISSION.default,
  };
}

/**
 * D4 for the queue's settings beside their own bounds (the input class): `admitPerMinute` has no
 * default, so a queue set up for the first time needs it; `opensAt` not after `onSaleAt`; and once
 * the sale opened (the draw may have run) `onSaleAt` stays as it is. Fields named `queue.<field>`.
 */
export function queueSettingsErrors(stored: QueueSettings | null, request: QueueSettingsRequest, now: Date): FieldError[] {
  const errors: FieldError[] = [];
  if (stored === null && request.admitPerMinute == null) {
    errors.push({ field: 'queue.admitPerMinute', message: 'queue.admitPerMinute is required to set up a queue' });
  }
  const merged = mergedSettings(stored, request);
  if (merged.opensAt !== null && merged.onSaleAt !== null && merged.opensAt.getTime() > merged.onSaleAt.getTime()) {
    errors.push({ field: 'queue.opensAt', message: 'queue.opensAt must not be after queue.onSaleAt' });
  }
  const onSaleMoved = request.onSaleAt !== undefined && (request.onSaleAt?.getTime() ?? null) !== (stored?.onSaleAt?.getTime() ?? null);
  if (stored !== null && onSaleMoved && onSale(stored, now)) {
    errors.push({ field: 'queue.onSaleAt', message: 'queue.onSaleAt cannot change once the sale has opened' });
  }
  return errors;
}

/** Whether the queue's sale has opened at `now` (an unset onSaleAt: from the start). */
export const onSale = (settings: Pick<QueueSettings, 'onSaleAt'>, now: Date): boolean =>
  settings.onSaleAt === null || settings.onSaleAt.getTime() <= now.getTime();

// ---- The draw ------------------------------------------------------------------------------------

/**
 * The early joiners' order (D30: everyone who joined before onSaleAt gets a random place): a
 * Fisher–Yates shuffle drawn from the operating system's cryptographic source, so that neither
 * arriving early nor joining many times buys a better place. `random(n)` is uniform in [0, n).
 */
export function drawOrder<T>(items: readonly T[], random: (n: number) => number = randomInt): T[] {
  const order = [...items];
  for (let index = order.length - 1; index > 0; index -= 1) {
    const other = random(index + 1);
    [order[index], order[other]] = [order[other], order[index]];
  }
  return order;
}

// ---- Admission -------------------------------------------------------------------------------------

/** How far behind its pace the admission may catch up after a pause (a stalled instance, an empty queue). */
export const CATCH_UP_MS = 5_000;
/**
 * The window every admission is counted in: a minute and a margin, so that any 60-second window of
 * stored admission times (milliseconds, rounded) holds at most admitPerMinute, however it is measured.
 */
export const RATE_WINDOW_MS = 60_100;

/** A queue as one admission pass sees it, under its lock (times in milliseconds of the database's clock). */
export interface AdmissionState {
  readonly now: number;
  /** The next admission's slot (null: none taken yet, the first is due now). */
  readonly paceMs: number | null;
  readonly admitPerMinute: number;
  readonly maxSeatsPerAdmission: number;
  /** Admissions in the last RATE_WINDOW_MS. */
  readonly admittedInWindow: number;
  readonly waiting: number;
  /** Seats free for sale now (null: nothing limits them). */
  readonly free: number | null;
  /** Admissions neither used nor lapsed. */
  readonly outstanding: number;
}

/**
 * How many the stock allows to admit now (D30, "it knows the stock"): outstanding admissions, each
 * taking up to maxSeatsPerAdmission, never promise more seats than are free; when fewer than
 * maxSeatsPerAdmission seats are left and nobody holds an admission, one more is admitted for them
 * (else the queue would stall before those last seats).
 */
export function stockAllows(free: number | null, outstanding: number, maxSeats: number): number {
  if (free === null) return Number.POSITIVE_INFINITY;
  const room = Math.max(0, Math.floor(free / maxSeats) - outstanding);
  return room === 0 && outstanding === 0 && free > 0 ? 1 : room;
}

/** Sold out (D30): no seat free and no admission outstanding. */
export const soldOut = (free: number | null, outstanding: number): boolean => free !== null && free <= 0 && outstanding === 0;

/**
 * One pass's admissions: slots every 60,000 / admitPerMinute ms from the pace on (a pause is caught
 * up for CATCH_UP_MS at most), never more than the window allows (at most admitPerMinute in any
 * RATE_WINDOW_MS), the stock allows or wait. The pace moves on by the slots used.
 */
export function admissionsDue(state: AdmissionState): { count: number; paceMs: number } {
  const slotMs = 60_000 / state.admitPerMinute;
  const base = Math.max(state.paceMs ?? state.now, state.now - CATCH_UP_MS);
  const due = state.now >= base ? Math.floor((state.now - base) / slotMs) + 1 : 0;
  const count = Math.max(
    0,
    Math.min(due, state.admitPerMinute - state.admittedInWindow, stockAllows(state.free, state.outstanding, state.maxSeatsPerAdmission), state.waiting),
  );
  return { count, paceMs: base + count * slotMs };
}

// ---- What a poll answers ---------------------------------------------------------------------------

/** The longest a client is asked to wait between polls. */
export const MAX_POLL_SECONDS = 30;

/** Seconds until a WAITING entry at `position` is admitted at the queue's rate (null without a position). */
export function estimatedWaitSeconds(position: number | null, admitPerMinute: number): number | null {
  return position === null ? null : Math.ceil((position * 60) / admitPerMinute);
}

/**
 * When to poll again: only a WAITING entry has anything to wait for (null otherwise). Before the
 * draw, until onSaleAt (at most MAX_POLL_SECONDS); after it, a tenth of the estimated wait, from 1 to
 * MAX_POLL_SECONDS: the far end of a long queue polls seldom, the front often.
 */
export function pollAfterSeconds(status: string, estimatedWait: number | null, onSaleAt: Date | null, now: Date): number | null {
  if (status !== 'WAITING') return null;
  const clamp = (seconds: number) => Math.min(MAX_POLL_SECONDS, Math.max(1, Math.ceil(seconds)));
  if (estimatedWait === null) return clamp(onSaleAt === null ? 1 : (onSaleAt.getTime() - now.getTime()) / 1000);
  return clamp(estimatedWait / 10);
}
