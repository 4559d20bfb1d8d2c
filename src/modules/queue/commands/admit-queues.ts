import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { noteOutboxWrite } from '../../../platform/outbox/outbox';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import { systemScope } from '../../../platform/db/unit-of-work-scope';
import { admissionsDue, drawOrder, soldOut } from '../queue.policy';
import {
  admitNext,
  dueQueues,
  earlyJoiners,
  expireAdmissions,
  lockQueue,
  sellOut,
  writeDraw,
  type LockedQueue,
  type QueueTarget,
} from '../queue-admission.repository';

/*
 * The admission job (D30): on every instance, every `intervalMs`, each queue whose sale has opened
 * gets one pass, in a transaction of its own under the queue's row lock (a queue another instance is
 * passing is skipped; one whose instance died is unlocked by its rollback and taken by the next pass):
 *   1. the draw, once: the early joiners' ranks (queue.policy.ts drawOrder);
 *   2. lapsed admissions stored EXPIRED;
 *   3. sold out (no seat free, no admission outstanding): every WAITING entry SOLD_OUT, `queue.sold_out`;
 *   4. else the admissions due (queue.policy.ts admissionsDue: rate, window, stock), `queue.admitted` each.
 * A pass every 500 ms (QUEUE_INTERVAL_MS) marks a sold-out queue within the 2 seconds D30 allows.
 */

/** What one pass did to a queue: null when it did not get the queue (another pass holds it, or it is done). */
export interface QueuePass {
  readonly drawn: number | null;
  readonly admitted: number;
  readonly soldOut: number | null;
}

/** Queues passed per round (the rest wait for the next round). */
const QUEUES_PER_ROUND = 50;

/** The draw (D30 "fair"): the early joiners who left first (passed at once), then the others in a random order. */
async function draw(tx: EntityManager, queue: LockedQueue, random?: (n: number) => number): Promise<LockedQueue> {
  const early = queue.early ?? queue.joined;
  const joiners = await earlyJoiners(tx, queue, early);
  if (joiners.length !== early) throw new Error(`queue of ${queue.eventId}: ${joiners.length} early joiners without a rank, ${early} expected`);
  const left = joiners.filter((joiner) => joiner.status === 'LEFT').map((joiner) => joiner.id);
  const waiting = drawOrder(
    joiners.filter((joiner) => joiner.status !== 'LEFT').map((joiner) => joiner.id),
    random,
  );
  await writeDraw(tx, queue, [...left, ...waiting], early, left.length);
  return { ...queue, drawn: true, early, head: left.length };
}

/** One pass over the queue `target` (see the steps above), in a transaction of its own. */
export async function passQueue(em: EntityManager, target: QueueTarget, options: { wake?: () => void; random?: (n: number) => number } = {}): Promise<QueuePass | null> {
  const scope = systemScope(em.fork(), 'queue-admission', { outboxWritten: options.wake });
  return inUnitOfWork(scope, async (tx) => {
    const locked = await lockQueue(tx, target);
    if (!locked) return null;
    const queue = locked.drawn ? locked : await draw(tx, locked, options.random);
    const drawn = locked.drawn ? null : (queue.early ?? 0);
    await expireAdmissions(tx, target);
    if (!queue.selling || queue.waiting === 0) return { drawn, admitted: 0, soldOut: null };
    if (soldOut(queue.free, queue.outstanding)) {
      const sold = await sellOut(tx, queue);
      if (sold.outboxWritten) noteOutboxWrite(tx);
      return { drawn, admitted: 0, soldOut: sold.entries };
    }
    const { count, paceMs } = admissionsDue(queue);
    if (count === 0) return { drawn, admitted: 0, soldOut: null };
    const made = await admitNext(tx, queue, count, paceMs);
    if (made.outboxWritten) noteOutboxWrite(tx);
    return { drawn, admitted: made.admitted, soldOut: null };
  });
}

/** One round: a pass over each queue due now. Returns the passes this instance made. */
export async function admitQueues(em: EntityManager, options: { wake?: () => void } = {}): Promise<QueuePass[]> {
  const passes: QueuePass[] = [];
  for (const target of await dueQueues(em.fork(), QUEUES_PER_ROUND)) {
    const pass = await passQueue(em, target, options);
    if (pass) passes.push(pass);
  }
  return passes;
}

/** Runs a round every `intervalMs` on this instance until the returned function is called. */
export function startQueueAdmission(em: EntityManager, logger: Logger, options: { intervalMs: number; wake?: () => void }): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = admitQueues(em, options).then(
        () => schedule(),
        (error: unknown) => {
          logger.warn({ err: error }, 'queue admission round failed; trying again');
          schedule();
        },
      );
    }, options.intervalMs);
    timer.unref();
  };
  schedule();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
