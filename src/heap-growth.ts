import v8 from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived the last full collection, in percent.
 * V8's default on a host with plenty of memory is up to 300 % (the heap may reach four times its live
 * size before the next full collection): under the benchmark's load a 30 MB live heap grew to 150 MB
 * of old space and the process peaked near 290 MB. At 100 % the same run peaks near 200 MB, for
 * about 0.02 ms more of full collections per request (docs/operating.md, "Memory").
 */
export const HEAP_GROWING_PERCENT = 100;

/** True when the operator chose V8's heap growth themselves (NODE_OPTIONS or a node flag). */
function chosenByOperator(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].some((flag) => /^--heap[-_]growing[-_]percent\b/.test(flag));
}

/**
 * Applies the server's heap growth unless the operator chose one. The flag is read by V8 each time it
 * sets the next collection's limit, so setting it when the process starts takes effect.
 */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS): void {
  if (!chosenByOperator(execArgv, nodeOptions)) v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
