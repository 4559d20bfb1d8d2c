import { GraphQLClient } from 'graphql-request';
import { UpcomingEventsDocument, type UpcomingEventsQuery } from './generated';

/**
 * A frontend's typed call: the document is typed from schema.graphql (npm run codegen), so the
 * variables are checked and the result needs no cast. `fetch` is the platform's unless given.
 */
export async function upcomingEvents(
  endpoint: string,
  apiKey: string,
  fetch?: typeof globalThis.fetch,
): Promise<Array<{ title: string; startsAt: Date; cheapest: number | null }>> {
  const client = new GraphQLClient(endpoint, { headers: { Authorization: `Bearer ${apiKey}` }, ...(fetch ? { fetch } : {}) });
  const data: UpcomingEventsQuery = await client.request(UpcomingEventsDocument, { limit: 10 });
  return data.events.events.map((event) => ({
    title: event.title,
    startsAt: new Date(event.startDate),
    cheapest: event.ticketTypes.length === 0 ? null : Math.min(...event.ticketTypes.map((ticketType) => ticketType.price)),
  }));
}
