/** How an event's facts read on its pages: times in the event's own time zone, seats as D20 counts them. */

/** An instant in a time zone (the event's), e.g. "1 Mar 2027, 18:00". */
export function formatInZone(iso: string, timeZone: string): string {
  try {
    return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone });
  } catch {
    // A zone this browser does not know: the browser's own.
    return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  }
}

/** When an event runs, in its time zone, the zone named. */
export function schedule(event: { startDate: string; endDate: string; timezone: string }): string {
  return `${formatInZone(event.startDate, event.timezone)} – ${formatInZone(event.endDate, event.timezone)} (${event.timezone})`;
}

/** Seats free for sale (D20): capacity − confirmed − held; null when the event has no capacity. */
export function freeSeats(event: { capacity: number | null; registrationCount: number; heldCount: number }): number | null {
  if (event.capacity === null) return null;
  return Math.max(0, event.capacity - event.registrationCount - event.heldCount);
}

/** A booking's ticket type as it reads in a list: its name, or "no ticket type". */
export function ticketTypeName(ticketType: { name: string } | null): string {
  return ticketType?.name ?? 'no ticket type';
}

/** The address of an event's page (`door`: its door page), slug escaped. */
export function eventHref(slug: string, door = false): string {
  return `#/events/${encodeURIComponent(slug)}${door ? '/door' : ''}`;
}
