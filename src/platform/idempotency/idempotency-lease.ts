/**
 * How long a RUNNING record holds its key when its request never finishes (the process died): past
 * that, a retry runs the operation. Every request is bounded well below this (database timeouts,
 * the server's request timeout of 60 s).
 */
export const LEASE_SECONDS = 120;

/**
 * Runs `attempt` in the background with a doubling delay (from 0.5 s, at most 10 s between two) until
 * it resolves true, or the lease of a key would have ended, or `stop` is aborted (the service closes
 * its pools: the key's lease ends it): how a record the database could not take when it was due (a
 * claim to forget, an answer to store, a key to release) is written once it can.
 */
export function retryInBackground(attempt: () => Promise<boolean>, onDone?: () => void, stop?: AbortSignal): void {
  const giveUpAt = Date.now() + LEASE_SECONDS * 1000;
  const next = (delayMs: number) => {
    setTimeout(() => {
      if (stop?.aborted) return;
      attempt().then(
        (finished) => {
          if (finished) onDone?.();
          else if (Date.now() + delayMs < giveUpAt) next(Math.min(delayMs * 2, 10_000));
        },
        () => {
          if (Date.now() + delayMs < giveUpAt) next(Math.min(delayMs * 2, 10_000));
        },
      );
    }, delayMs).unref();
  };
  next(500);
}

/** Retry-After of 409 IDEMPOTENCY_KEY_IN_USE: the first request usually finishes within a second. */
export const IN_USE_RETRY_AFTER_SECONDS = 1;
