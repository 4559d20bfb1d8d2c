import { newId } from '../../../foundation/ids';
import type { TicketTypeInput } from '../../ticket-type/ticket-type.inputs';
import type { SeriesTicketType } from '../series.entity';
import type { TemplateFields } from '../series-planner';
import type { NewOccurrence, NewOccurrenceTicketType } from '../series-rows';

/*
 * What every occurrence takes from its series (D28): the event fields of the template, flat on the
 * series input as on createEvent, and its ticket types, each occurrence getting its own (new ids).
 */

type TemplateInput = Pick<TemplateFields, 'title'> & {
  description?: string | null;
  venue?: string | null;
  venueAddress?: string | null;
  coverImage?: string | null;
  capacity?: number | null;
};

export function templateOf(input: TemplateInput, timezone: string): TemplateFields {
  return {
    title: input.title,
    description: input.description ?? null,
    venue: input.venue ?? null,
    venueAddress: input.venueAddress ?? null,
    coverImage: input.coverImage ?? null,
    capacity: input.capacity ?? null,
    timezone,
  };
}

/** The template's ticket types as the series keeps them. */
export function ticketTypesOf(input: readonly TicketTypeInput[] | null | undefined): SeriesTicketType[] {
  return (input ?? []).map(({ name, price, currency, quantity }) => ({ name, price, currency, quantity }));
}

/** Every occurrence's own ticket types: new ids, creation times one millisecond apart in the order given (the reads' order). */
export function newTicketTypes(types: readonly SeriesTicketType[], occurrences: readonly NewOccurrence[], now: Date): NewOccurrenceTicketType[] {
  return occurrences.flatMap((occurrence) =>
    types.map((type, index) => ({ ...type, id: newId('tt'), eventId: occurrence.id, createdAt: new Date(now.getTime() + index) })),
  );
}
