import { AsyncLocalStorage } from 'node:async_hooks';

/*
 * Node's promise hooks off whenever no AsyncLocalStorage is in use.
 *
 * On Node 20 an AsyncLocalStorage, once it has run anything, stays enabled: from then on Node runs a
 * hook for every promise the process makes, for as long as the process lives (an `await` costs
 * several times as much; the figure, and when this can go: docs/performance.md). MikroORM runs one for
 * each `em.transactional` (TransactionContext), each `flush` (its nested-flush guard) and each
 * `findAndCount`: the first ORM transaction of a process taxed every later request, reads included,
 * although the service never reads those stores (its entity managers are forks, which do not look at
 * the transaction context).
 *
 * `releaseIdleAsyncLocalStorage()` (called once when the server starts) counts each storage's runs in
 * flight and disables the storage when its last run has ended (for a run whose callback returns a
 * promise: when that promise settles), which turns the hooks off again once no storage is enabled.
 * Inside a run, and in everything the run awaits, `getStore()` answers as before. What it gives up: a
 * callback that returns before work it started without awaiting it (a timer, a promise it does not
 * return) finds no store there once the run is over; MikroORM's runs all return their work's promise.
 * On a Node whose AsyncLocalStorage needs no hooks (AsyncContextFrame, Node 24) disabling is harmless.
 */

let installed = false;
const running = new WeakMap<AsyncLocalStorage<unknown>, number>();

function leave(storage: AsyncLocalStorage<unknown>): void {
  const left = (running.get(storage) ?? 1) - 1;
  running.set(storage, left);
  if (left === 0) storage.disable();
}

export function releaseIdleAsyncLocalStorage(): void {
  if (installed) return;
  installed = true;
  // The original method, called with each storage as `this` below.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const run = AsyncLocalStorage.prototype.run;
  AsyncLocalStorage.prototype.run = function runThenRelease<R, TArgs extends unknown[]>(
    this: AsyncLocalStorage<unknown>,
    store: unknown,
    callback: (...args: TArgs) => R,
    ...args: TArgs
  ): R {
    running.set(this, (running.get(this) ?? 0) + 1);
    let result: R;
    try {
      result = run.call(this, store, callback, ...args) as R;
    } catch (error) {
      leave(this);
      throw error;
    }
    if (result instanceof Promise) {
      // Settled either way; the caller handles the result itself (this branch never rejects).
      result.then(
        () => leave(this),
        () => leave(this),
      );
    } else {
      leave(this);
    }
    return result;
  };
}

/** Whether the storage is enabled (Node keeps promise hooks on while any is). For tests. */
export function isEnabled(storage: AsyncLocalStorage<unknown>): boolean {
  return (storage as unknown as { enabled?: boolean }).enabled === true;
}
