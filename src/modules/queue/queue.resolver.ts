import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../platform/graphql/request-context';
import { RequiresPermission } from '../../platform/graphql/requires-permission';
import { EventEntity } from '../event/event.entity';
import type { EventView } from '../event/event.read-repository';
import { joinQueue } from './commands/join-queue';
import { leaveQueue } from './commands/leave-queue';
import { queueEntryById, queueSettingsOf, queueStatsBySlug, queueStatsOfEvent } from './queue.read-model';
import { EventQueue, JoinQueueInput, QueueEntry, QueueStats } from './queue.types';

@Resolver(() => QueueEntry)
export class QueueResolver {
  @Query(() => QueueEntry, {
    nullable: true,
    description: 'A queue entry by id, as a storefront polls it (D30): status, position, estimatedWaitSeconds, pollAfterSeconds. Null (with QUEUE_ENTRY_NOT_FOUND) when there is none.',
  })
  @RequiresPermission('bookings:read')
  queueEntry(@Ctx() context: RequestContext, @Arg('id', () => ID) id: string): Promise<QueueEntry> {
    return queueEntryById(context, id);
  }

  @Query(() => QueueStats, { description: "An event's queue in figures (D30): waiting, admitted (outstanding), used, admitted in the last minute." })
  @RequiresPermission('bookings:read')
  queueStats(@Ctx() context: RequestContext, @Arg('eventSlug') eventSlug: string): Promise<QueueStats> {
    return queueStatsBySlug(context, eventSlug);
  }

  @Mutation(() => QueueEntry, {
    description:
      "Joins the event's on-sale queue (D30): one entry per attendee email (joining again answers it, created false; after leaving, a new one at the back). QUEUE_NOT_ENABLED, QUEUE_NOT_OPEN before opensAt, SOLD_OUT.",
  })
  @RequiresPermission('bookings:write')
  joinQueue(@Ctx() context: RequestContext, @Arg('eventSlug') eventSlug: string, @Arg('input') input: JoinQueueInput): Promise<QueueEntry> {
    return joinQueue(context.scope, context.auth.organization.id, eventSlug, input);
  }

  @Mutation(() => QueueEntry, { description: 'Leaves the queue (D30): the entry becomes LEFT (a USED one stays USED); those behind move up.' })
  @RequiresPermission('bookings:write')
  leaveQueue(@Ctx() context: RequestContext, @Arg('id', () => ID) id: string): Promise<QueueEntry> {
    return leaveQueue(context.scope, context.auth.organization.id, id);
  }
}

@Resolver(() => EventEntity)
export class EventQueueResolver {
  @FieldResolver(() => EventQueue, { nullable: true, description: 'The on-sale queue (D30); null when the event has none.' })
  queue(@Ctx() context: RequestContext, @Root() event: (EventEntity | EventView) & { queue?: EventQueue | null }): Promise<EventQueue | null> | EventQueue | null {
    // Read with the event where its statement read it (the reads, create and update); batched where not.
    return event.queue !== undefined ? event.queue : queueSettingsOf(context, event.id);
  }
}

@Resolver(() => EventQueue)
export class EventQueueStatsResolver {
  // Nullable: a key without bookings:read still gets the settings (partial data).
  @FieldResolver(() => QueueStats, { nullable: true, description: 'The queue in figures now (needs bookings:read).' })
  @RequiresPermission('bookings:read')
  stats(@Ctx() context: RequestContext, @Root() queue: EventQueue): Promise<QueueStats> {
    return queueStatsOfEvent(context, queue.eventId);
  }
}
