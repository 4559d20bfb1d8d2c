import type { ServerResponse } from 'node:http';

/*
 * A request's deadline (D13): its answer is due REQUEST_DEADLINE_MS after it arrived,
 * whatever it waits for. Every database bound (connect, pool wait, statement, lock wait) is shorter
 * than that and answers 503 on its own, but they add up along a request (a key lookup, a claim, a
 * transaction of several statements, the stored answer), and a frozen database reaches each of them
 * in turn; the deadline is the one bound on the sum. The pipeline (src/http/pipeline.ts) answers an
 * overdue request 503 SERVICE_UNAVAILABLE with Retry-After, and what the request was still doing is let
 * go: each write it may yet commit is safe to retry (with an Idempotency-Key, the retry finds its
 * recovery point or the key released; without one, the client was told nothing was acknowledged).
 */

const ignoreWrite = () => true;

/**
 * After an answer was written for a request whose work goes on (an overdue one), whatever that work
 * writes later goes nowhere: a second answer on a finished response would be an error event, and a
 * header or status set before the answer's bytes leave (an Idempotency-Key's answer waits a moment for
 * its record) would change it. `writeHead` stays: the answer's own end writes its head through it.
 */
export function abandon(res: ServerResponse): void {
  const status = res.statusCode;
  Object.defineProperty(res, 'statusCode', { configurable: true, enumerable: true, get: () => status, set: () => undefined });
  Object.assign(res, {
    write: ignoreWrite,
    end: (...args: unknown[]) => {
      const callback = args.find((argument) => typeof argument === 'function') as (() => void) | undefined;
      if (callback) process.nextTick(callback);
      return res;
    },
    setHeader: () => res,
    appendHeader: () => res,
    removeHeader: () => undefined,
    flushHeaders: () => undefined,
  });
}
