import { eventSlug, queueEntryId, type RestRoute } from './route-table';

/** The on-sale queue (D30): join (201 new, 200 the attendee's entry), poll, leave, and the figures. */
export const QUEUE_ROUTES: readonly RestRoute[] = [
  {
    method: 'POST',
    path: '/v1/events/:slug/queue',
    operation: 'JoinQueue',
    body: 'input',
    status: 201,
    created: 'created',
    result: 'joinQueue',
    location: { path: '/v1/queue/', field: 'id' },
    errors: ['EVENT_NOT_FOUND', 'QUEUE_NOT_ENABLED', 'QUEUE_NOT_OPEN', 'EVENT_NOT_PUBLISHED', 'SOLD_OUT'],
    parameterBounds: eventSlug,
    tag: 'Queue',
  },
  { method: 'GET', path: '/v1/events/:slug/queue', operation: 'QueueStats', status: 200, result: 'queueStats', errors: ['EVENT_NOT_FOUND'], parameterBounds: eventSlug, tag: 'Queue' },
  { method: 'GET', path: '/v1/queue/:id', operation: 'GetQueueEntry', status: 200, result: 'queueEntry', errors: ['QUEUE_ENTRY_NOT_FOUND'], parameterBounds: queueEntryId, tag: 'Queue' },
  { method: 'DELETE', path: '/v1/queue/:id', operation: 'LeaveQueue', status: 200, result: 'leaveQueue', errors: ['QUEUE_ENTRY_NOT_FOUND'], parameterBounds: queueEntryId, tag: 'Queue' },
];
