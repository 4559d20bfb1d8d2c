import { code } from './error-code-entry';

/**
 * The on-sale queue's codes (D30), an entry each as in the one table (error-codes.ts), where they are
 * spread in their place: the order of the catalogue is the table's.
 */
export const QUEUE_ERROR_TABLE = {
  QUEUE_ENTRY_NOT_FOUND: code<{ id: string }>({
    status: 404,
    when: "No queue entry with this id in the key's organization (another organization's entry answers the same; D30).",
    details: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  }),
  QUEUE_NOT_ENABLED: code<{ eventSlug: string }>({
    status: 409,
    when: "joinQueue on an event whose queue is not enabled (it has none, or it was turned off).",
    details: { type: 'object', properties: { eventSlug: { type: 'string' } }, required: ['eventSlug'] },
  }),
  QUEUE_NOT_OPEN: code<{ opensAt: string }>({
    status: 409,
    when: 'joinQueue before the queue opens (details.opensAt).',
    details: { type: 'object', properties: { opensAt: { type: 'string', format: 'date-time' } }, required: ['opensAt'] },
  }),
  NOT_ON_SALE: code<{ onSaleAt: string }>({
    status: 409,
    when: "A booking of an event whose queue is enabled, before its onSaleAt (details.onSaleAt).",
    details: { type: 'object', properties: { onSaleAt: { type: 'string', format: 'date-time' } }, required: ['onSaleAt'] },
  }),
  QUEUE_REQUIRED: code<{ eventSlug: string }>({
    status: 403,
    when: "A booking of an event whose queue is enabled, without queueEntryId: join the queue (POST /v1/events/{slug}/queue) and book once admitted.",
    details: { type: 'object', properties: { eventSlug: { type: 'string' } }, required: ['eventSlug'] },
  }),
  NOT_ADMITTED: code<{ id: string; status: string; position: number | null }>({
    status: 409,
    when: 'The queue entry is not admitted (yet): WAITING (details.position), or LEFT or SOLD_OUT.',
    details: {
      type: 'object',
      properties: { id: { type: 'string' }, status: { type: 'string' }, position: { type: ['integer', 'null'] } },
      required: ['id', 'status', 'position'],
    },
  }),
  ADMISSION_USED: code<{ id: string; bookingId: string | null }>({
    status: 409,
    when: 'The admission was used by a booking already (details.bookingId): one admission, one booking.',
    details: { type: 'object', properties: { id: { type: 'string' }, bookingId: { type: ['string', 'null'] } }, required: ['id', 'bookingId'] },
  }),
  ADMISSION_EXPIRED: code<{ id: string; admittedUntil: string }>({
    status: 409,
    when: 'The admission lapsed at details.admittedUntil without a booking.',
    details: { type: 'object', properties: { id: { type: 'string' }, admittedUntil: { type: 'string', format: 'date-time' } }, required: ['id', 'admittedUntil'] },
  }),
  ADMISSION_MISMATCH: code<{ id: string; mismatched: 'attendeeEmail' | 'eventSlug' }>({
    status: 409,
    when: "The queue entry is another attendee's (details.mismatched attendeeEmail) or another event's (eventSlug): an admission books for its own attendee and event.",
    details: {
      type: 'object',
      properties: { id: { type: 'string' }, mismatched: { type: 'string', enum: ['attendeeEmail', 'eventSlug'] } },
      required: ['id', 'mismatched'],
    },
  }),
};
