import type { HttpsClient } from './https-client';
import { createPublishedEvent, type CreatedEvent } from './bookings';

/* The on-sale queue (D30) as a storefront uses it, through both doors, for the queue's case files. */

export const QUEUE_ENTRY_FIELDS =
  'id eventId eventSlug attendeeEmail attendeeName status position estimatedWaitSeconds pollAfterSeconds joinedAt admittedAt admittedUntil usedAt bookingId';
export const JOIN_QUEUE = `mutation($eventSlug: String!, $input: JoinQueueInput!) { joinQueue(eventSlug: $eventSlug, input: $input) { ${QUEUE_ENTRY_FIELDS} created } }`;
export const QUEUE_ENTRY = `query($id: ID!) { queueEntry(id: $id) { ${QUEUE_ENTRY_FIELDS} } }`;
export const LEAVE_QUEUE = `mutation($id: ID!) { leaveQueue(id: $id) { ${QUEUE_ENTRY_FIELDS} } }`;
export const QUEUE_STATS = `query($eventSlug: String!) { queueStats(eventSlug: $eventSlug) { waiting admitted used admittedLastMinute } }`;

export const inSeconds = (seconds: number): string => new Date(Date.now() + seconds * 1000).toISOString();

/** A PUBLISHED event with an enabled queue (`queue` over: open now, on sale in an hour, 600 a minute). */
export function createQueuedEvent(client: HttpsClient, key: string, queue: Record<string, unknown> = {}, event: Record<string, unknown> = {}): Promise<CreatedEvent> {
  return createPublishedEvent(client, key, { capacity: 100, ...event, queue: { enabled: true, onSaleAt: inSeconds(3600), admitPerMinute: 600, ...queue } });
}

/** Opens the sale now (onSaleAt moved to the past while it has not passed yet): the next pass draws and admits. */
export async function openSale(client: HttpsClient, key: string, slug: string): Promise<void> {
  const opened = await client.rest('PUT', `/v1/events/${slug}`, key, { queue: { onSaleAt: inSeconds(-1) } });
  if (opened.status !== 200) throw new Error(`open sale: ${opened.status} ${opened.text}`);
}

export const person = (name: string) => ({ attendeeEmail: `${name}@example.com`, attendeeName: name });

export function join(client: HttpsClient, key: string, slug: string, name: string) {
  return client.rest('POST', `/v1/events/${slug}/queue`, key, person(name));
}

export function poll(client: HttpsClient, key: string, id: string) {
  return client.rest('GET', `/v1/queue/${id}`, key);
}

/** Polls `read` until `done` holds (every 100 ms, at most `timeoutMs`): its last value. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
