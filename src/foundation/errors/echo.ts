/*
 * How much of a client's own value an error may show (D13): an error that repeats what
 * it was sent (a 1 MB slug came back twice) turns every refusal into an amplifier. Named constructors
 * echo values through `echo`; every AppError's message and details pass `boundText` on the way in
 * (app-error.ts), and GraphQL's own messages on the way out (src/platform/graphql/graphql-errors.ts).
 */

/** The most characters of one client value an error shows. */
export const ECHO_MAX_CHARS = 64;
/** The longest message or detail string an error carries (server text included). */
export const TEXT_MAX_CHARS = 500;

const ELLIPSIS = '…';

/** `value` as an error may show it: its first ECHO_MAX_CHARS characters, then "…" when it was longer. */
export function echo(value: string, max = ECHO_MAX_CHARS): string {
  if (value.length <= max) return value;
  let end = max;
  // Never half a surrogate pair: the answer is JSON, and a lone surrogate is not UTF-8.
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return value.slice(0, end) + ELLIPSIS;
}

const LONG_QUOTED = new RegExp(`"([^"]{${ECHO_MAX_CHARS + 1},})"`, 'g');
const LONG_WORD = new RegExp(`[^\\s"]{${ECHO_MAX_CHARS + 1},}`, 'g');

/**
 * A message or detail that may hold client values, bounded: each quoted part ("…", as GraphQL and our
 * own messages quote values) and each unbroken run of characters (a value written without quotes) at
 * most ECHO_MAX_CHARS characters, the whole at most TEXT_MAX_CHARS.
 */
export function boundText(text: string): string {
  if (text.length <= ECHO_MAX_CHARS) return text;
  const quoted = text.replace(LONG_QUOTED, (_whole, inner: string) => `"${echo(inner)}"`);
  return echo(quoted.replace(LONG_WORD, (word) => echo(word)), TEXT_MAX_CHARS);
}

/** `details` with every string in it passed through boundText (a copy; the original when nothing changes). */
export function boundDetails<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return boundText(value) as T;
  if (value === null || typeof value !== 'object' || depth > 8 || value instanceof Date) return value;
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item: unknown) => {
      const bounded = boundDetails(item, depth + 1);
      if (bounded !== item) changed = true;
      return bounded;
    });
    return (changed ? items : value) as T;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [name, item] of Object.entries(value as Record<string, unknown>)) {
    const bounded = boundDetails(item, depth + 1);
    if (bounded !== item) (copy ??= { ...(value as Record<string, unknown>) })[name] = bounded;
  }
  return (copy ?? value) as T;
}
