import { Arg, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../platform/graphql/request-context';
import { RequiresPermission } from '../../platform/graphql/requires-permission';
import { TicketTypeEntity } from '../ticket-type/ticket-type.entity';
import { EventEntity } from './event.entity';
import { GraphQLDateTimeISO } from 'graphql-scalars';
import { checkedInCountOf, eventBySlug, eventPage, heldCountOf, ticketTypesOf, type EventPage } from './event.read-model';
import { EventOrder } from './event-order';
import type { EventView, TicketTypeView } from './event.read-repository';
import { CreateEventInput, UpdateEventInput } from './event.inputs';
import { DEFAULT_LIMIT } from '../../foundation/validation/arguments';
import { createEvent } from './commands/create-event';
import { deleteEvent } from './commands/delete-event';
import { updateEvent } from './commands/update-event';
import { EventStatus } from './event-status';
import { DeletedEvent, EventList } from './event.types';

@Resolver(() => EventEntity)
export class EventResolver {
  @Query(() => EventList, { description: "The organization's events, newest first unless orderBy says otherwise." })
  @RequiresPermission('events:read')
  events(
    @Ctx() context: RequestContext,
    @Arg('page', () => Int, { defaultValue: 1, description: 'Page number, from 1.' }) page: number,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT, description: 'Page size, 1 to 100.' }) limit: number,
    @Arg('status', () => EventStatus, { nullable: true }) status?: EventStatus | null,
    @Arg('startsAfter', () => GraphQLDateTimeISO, { nullable: true, description: 'Only events starting strictly after this instant.' })
    startsAfter?: Date | null,
    @Arg('startsBefore', () => GraphQLDateTimeISO, { nullable: true, description: 'Only events starting strictly before this instant.' })
    startsBefore?: Date | null,
    @Arg('search', () => String, { nullable: true, description: 'Only events whose title contains this text, ignoring case.' })
    search?: string | null,
    @Arg('series', () => String, { nullable: true, description: "Only the occurrences of the organization's series with this slug (D28)." })
    series?: string | null,
    @Arg('orderBy', () => EventOrder, { nullable: true, defaultValue: EventOrder.CREATED_AT_DESC, description: 'Sort order of the page.' })
    orderBy?: EventOrder | null,
    @Arg('after', () => String, {
      nullable: true,
      description: "A previous page's nextCursor: the page after it (same filters and order), instead of a page number.",
    })
    after?: string | null,
  ): Promise<EventPage> {
    return eventPage(context, { page, limit, status, startsAfter, startsBefore, search, series, orderBy, after });
  }

  @Query(() => EventEntity, {
    nullable: true,
    description: 'One event by slug, with its ticket types; null (with an EVENT_NOT_FOUND error at its path) when there is none.',
  })
  @RequiresPermission('events:read')
  event(@Ctx() context: RequestContext, @Arg('slug') slug: string): Promise<EventView> {
    return eventBySlug(context, slug);
  }

  @Mutation(() => EventEntity, { description: 'Creates an event in DRAFT.' })
  @RequiresPermission('events:write')
  createEvent(@Ctx() context: RequestContext, @Arg('input') input: CreateEventInput): Promise<EventEntity> {
    return createEvent(context.scope, context.auth.organization, input);
  }

  @Mutation(() => EventEntity, { description: 'Changes the given fields and/or the status of an event.' })
  @RequiresPermission('events:write')
  updateEvent(
    @Ctx() context: RequestContext,
    @Arg('slug') slug: string,
    @Arg('input') input: UpdateEventInput,
  ): Promise<EventEntity> {
    return updateEvent(context.scope, context.auth.organization.id, slug, input);
  }

  @Mutation(() => DeletedEvent, { description: 'Deletes an event without confirmed bookings.' })
  @RequiresPermission('events:write')
  deleteEvent(@Ctx() context: RequestContext, @Arg('slug') slug: string): Promise<DeletedEvent> {
    return deleteEvent(context.scope, context.auth.organization.id, slug);
  }

  @FieldResolver(() => Int, {
    description: 'Seats held now by HELD bookings (D20); they count against capacity but not in registrationCount. Holds past their expiresAt are left out.',
  })
  heldCount(@Ctx() context: RequestContext, @Root() event: EventEntity | EventView): Promise<number> | number {
    // Read with the event where its statement counted them (the reads, create and update: D20, both
    // doors); batched per response where it did not (a booking's event, a replayed answer).
    return event.heldCount ?? heldCountOf(context, event.id);
  }

  @FieldResolver(() => [TicketTypeEntity])
  ticketTypes(
    @Ctx() context: RequestContext,
    @Root() event: EventEntity | EventView,
  ): Promise<TicketTypeView[]> | readonly (TicketTypeEntity | TicketTypeView)[] {
    // A single event is read with its ticket types; an entity (after a write) has them loaded.
    if (Array.isArray(event.ticketTypes)) return event.ticketTypes;
    if (event instanceof EventEntity && event.ticketTypes.isInitialized()) return event.ticketTypes.getItems();
    // Batched across the events of one response: a list page costs one statement for all of them.
    return ticketTypesOf(context, event.id);
  }

  @FieldResolver(() => Int, {
    description: 'CONFIRMED bookings checked in at the door (D22): bookings, not seats (compare with the number of CONFIRMED bookings).',
  })
  checkedInCount(@Ctx() context: RequestContext, @Root() event: EventEntity | EventView): Promise<number> | number {
    return event.checkedInCount ?? checkedInCountOf(context, event.id);
  }
}
