import v8 from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived the last full collection, in percent.
 * V8's default on a host with plenty of memory is up to 300 % (the heap may reach four times its live
 * size before the next full collection): under the benchmark's load the process grew past the 250 MB
 * it should stay within. At 100 % it stays within, with the same throughput and a p99 within the noise
 * (figures: docs/performance.md, "Settings chosen by measurement"; docs/operating.md, "Memory").
 */
export const HEAP_GROWING_PERCENT = 100;

/**
 * The growth to apply: HEAP_GROWING_PERCENT from the environment (0 = V8's own), else the default.
 * Node refuses this V8 flag in NODE_OPTIONS, hence the variable. Throws on a value that is not an
 * integer from 0 to 1000 (the start stops with that message, as for the other settings).
 */
export function heapGrowingPercent(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.HEAP_GROWING_PERCENT;
  if (raw === undefined || raw.trim() === '') return HEAP_GROWING_PERCENT;
  const value = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || value > 1000) throw new Error(`HEAP_GROWING_PERCENT must be an integer from 0 to 1000 (0: V8's default), got "${raw}"`);
  return value;
}

/**
 * Applies the heap growth when the server starts, unless `node --heap-growing-percent=…` chose one. V8
 * reads the flag each time it sets the next collection's limit, so setting it at start takes effect.
 */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv, env: NodeJS.ProcessEnv = process.env): void {
  const percent = heapGrowingPercent(env);
  if (percent === 0 || execArgv.some((flag) => /^--heap[-_]growing[-_]percent\b/.test(flag))) return;
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/**
 * Turns off V8's allocation-site pretenuring when the server starts, unless a node flag chose it.
 * V8 allocates objects straight in the old generation from the allocation sites whose objects mostly
 * survived a young collection. Requests that wait (the creates of a bulk load, each in a
 * transaction) teach it that for the sites of Node's HTTP objects, headers and response bodies; from
 * then on every request's objects went to the old generation under `GET /v1/events/{slug}`, with
 * frequent full collections that made the small reads' p99 (figures, and when this can go:
 * docs/performance.md). V8 reads the flag each time it weighs the feedback, so setting it at start
 * takes effect.
 */
export function disablePretenuring(execArgv: readonly string[] = process.execArgv): void {
  if (execArgv.some((flag) => /^--(no-)?allocation[-_]site[-_]pretenuring\b/.test(flag))) return;
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
}
