import { Arg, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../graphql/request-context';
import { RequiresPermission } from '../../graphql/requires-permission';
import { TicketTypeEntity } from '../ticket-type/ticket-type.entity';
import { EventEntity } from './event.entity';
import { ticketTypesOf } from './event.read-model';
import { CreateEventInput, UpdateEventInput } from './event.inputs';
import { DEFAULT_LIMIT } from '../../validation/arguments';
import { createEvent } from './commands/create-event';
import { deleteEvent } from './commands/delete-event';
import { updateEvent } from './commands/update-event';
import { EventService } from './event.service';
import { EventStatus } from './event-status';
import { DeletedEvent, EventList } from './event.types';

@Resolver(() => EventEntity)
export class EventResolver {
  @Query(() => EventList, { description: "The organization's events, newest first." })
  @RequiresPermission('events:read')
  events(
    @Ctx() context: RequestContext,
    @Arg('page', () => Int, { defaultValue: 1, description: 'Page number, from 1.' }) page: number,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT, description: 'Page size, 1 to 100.' }) limit: number,
    @Arg('status', () => EventStatus, { nullable: true }) status?: EventStatus | null,
  ): Promise<EventList> {
    return new EventService(context.em).list(context.auth.organization.id, { page, limit, status });
  }

  @Query(() => EventEntity, { description: 'One event by slug, with its ticket types.' })
  @RequiresPermission('events:read')
  event(@Ctx() context: RequestContext, @Arg('slug') slug: string): Promise<EventEntity> {
    return new EventService(context.em).get(context.auth.organization.id, slug);
  }

  @Mutation(() => EventEntity, { description: 'Creates an event in DRAFT.' })
  @RequiresPermission('events:write')
  createEvent(@Ctx() context: RequestContext, @Arg('input') input: CreateEventInput): Promise<EventEntity> {
    return createEvent(context.em, context.auth.organization, input);
  }

  @Mutation(() => EventEntity, { description: 'Changes the given fields and/or the status of an event.' })
  @RequiresPermission('events:write')
  updateEvent(
    @Ctx() context: RequestContext,
    @Arg('slug') slug: string,
    @Arg('input') input: UpdateEventInput,
  ): Promise<EventEntity> {
    return updateEvent(context.em, context.auth.organization.id, slug, input);
  }

  @Mutation(() => DeletedEvent, { description: 'Deletes an event without confirmed bookings.' })
  @RequiresPermission('events:write')
  deleteEvent(@Ctx() context: RequestContext, @Arg('slug') slug: string): Promise<DeletedEvent> {
    return deleteEvent(context.em, context.auth.organization.id, slug);
  }

  @FieldResolver(() => [TicketTypeEntity])
  ticketTypes(@Ctx() context: RequestContext, @Root() event: EventEntity): Promise<TicketTypeEntity[]> | TicketTypeEntity[] {
    if (event.ticketTypes?.isInitialized()) return event.ticketTypes.getItems();
    // Batched across the events of one response: a list page costs one statement for all of them.
    return ticketTypesOf(context.em, event.id);
  }
}
