import { localDate, localTimeLabel, type Floating } from './series-time';

/*
 * Occurrence slugs (D28): `{seriesSlug}-{YYYY-MM-DD}` of the local date; a second occurrence that day
 * gets `-HHMM` of its local time (`-HHMMSS` when its seconds are not zero, so two never share one). Pure.
 */

/** What a series slug may be: an occurrence's slug adds at most `-YYYY-MM-DD-HHMMSS` and stays within 100 characters. */
export const MAX_SERIES_SLUG_LENGTH = 100 - '-YYYY-MM-DD-HHMMSS'.length;

/** The slugs an occurrence at `key` may have, in order of preference. */
export function occurrenceSlugs(seriesSlug: string, key: Floating): [string, string] {
  const base = `${seriesSlug}-${localDate(key)}`;
  return [base, `${base}-${localTimeLabel(key)}`];
}

/**
 * The slug of each occurrence to be named (made, or moved to `key`), in the order given: taken in
 * order of their keys, the first of a date gets the date alone, later ones the time too. A moved
 * occurrence whose local date stays keeps its slug (`current`, when free). `taken`: the slugs of
 * occurrences that keep theirs and of the organization's other events. When both candidates are
 * taken (events of the organization already use them), the second is given anyway: the caller
 * refuses the plan, naming it.
 */
export function assignSlugs(seriesSlug: string, items: ReadonlyArray<{ key: Floating; current?: string }>, taken: ReadonlySet<string>): string[] {
  const used = new Set(taken);
  const slugs: string[] = new Array<string>(items.length);
  const order = items.map((item, index) => ({ ...item, index })).sort((a, b) => a.key - b.key || a.index - b.index);
  for (const item of order) {
    const candidates = occurrenceSlugs(seriesSlug, item.key);
    const keep = item.current !== undefined && !used.has(item.current) ? item.current : undefined;
    const slug = keep ?? candidates.find((candidate) => !used.has(candidate)) ?? candidates[1];
    used.add(slug);
    slugs[item.index] = slug;
  }
  return slugs;
}
