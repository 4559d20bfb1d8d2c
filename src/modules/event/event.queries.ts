/** The runtime's canonical spelling of a time zone the validator accepted (`utc` → `UTC`). */
export function canonicalTimeZone(timeZone: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
}
