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

/** An event's seats as a list reads them: "21 of 40 booked · 18 free". */
export function seatsText(event: { capacity: number | null; registrationCount: number; heldCount: number }): string {
  const free = freeSeats(event);
  return event.capacity === null ? `${event.registrationCount} booked · no capacity set` : `${event.registrationCount} of ${event.capacity} booked · ${free} free`;
}

/** A booking's ticket type as it reads in a list: its name, or "no ticket type". */
export function ticketTypeName(ticketType: { name: string } | null): string {
  return ticketType?.name ?? 'no ticket type';
}

/** The address of an event's page (`door`: its door page), slug escaped. */
export function eventHref(slug: string, door = false): string {
  return `#/events/${encodeURIComponent(slug)}${door ? '/door' : ''}`;
}

/** The address of a series' page, slug escaped. */
export function seriesHref(slug: string): string {
  return `#/series/${encodeURIComponent(slug)}`;
}

/** A local date-time without offset as the series stores it (`2027-03-01T18:00`), read as written: "1 Mar 2027, 18:00". */
export function formatLocal(local: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(local);
  if (!match) return local;
  const [year, month, day, hour, minute] = match.slice(1).map(Number);
  // Formatted in UTC so that the wall-clock time written is the one shown, whatever the browser's zone.
  return new Date(Date.UTC(year, month - 1, day, hour, minute)).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
}

/** A duration in minutes as it reads: "45 min", "1 h 30 min", "2 h". */
export function durationText(minutes: number): string {
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return `${rest} min`;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}
