/**
 * The runtime's canonical spelling of each time zone seen, by the spelling given: making an
 * Intl.DateTimeFormat per request is costly on a create (docs/performance.md), and there are a few hundred zones (the
 * validator accepted the name; the map is bounded all the same).
 */
const canonical = new Map<string, string>();
const MAX_SPELLINGS = 2_000;

/** The runtime's canonical spelling of a time zone the validator accepted (`utc` → `UTC`). */
export function canonicalTimeZone(timeZone: string): string {
  let spelled = canonical.get(timeZone);
  if (spelled === undefined) {
    spelled = new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
    if (canonical.size >= MAX_SPELLINGS) canonical.clear();
    canonical.set(timeZone, spelled);
  }
  return spelled;
}
