import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Resolver, Root } from 'type-graphql';
import { heldOf } from '../event/event.read-model';
import type { RequestContext } from '../../platform/graphql/request-context';
import { RequiresPermission } from '../../platform/graphql/requires-permission';
import { TicketTypeEntity } from './ticket-type.entity';
import { TicketTypeInput, TicketTypeUpdateInput } from './ticket-type.inputs';
import { addTicketType } from './commands/add-ticket-type';
import { removeTicketType } from './commands/remove-ticket-type';
import { updateTicketType } from './commands/update-ticket-type';

@Resolver(() => TicketTypeEntity)
export class TicketTypeResolver {
  @Mutation(() => TicketTypeEntity, { description: 'Adds a ticket type to an event.' })
  @RequiresPermission('events:write')
  addTicketType(
    @Ctx() context: RequestContext,
    @Arg('eventSlug') eventSlug: string,
    @Arg('input') input: TicketTypeInput,
  ): Promise<TicketTypeEntity> {
    return addTicketType(context.scope, context.auth.organization.id, eventSlug, input);
  }

  @Mutation(() => TicketTypeEntity, { description: 'Changes the given fields; quantity never goes below sold.' })
  @RequiresPermission('events:write')
  updateTicketType(
    @Ctx() context: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('input') input: TicketTypeUpdateInput,
  ): Promise<TicketTypeEntity> {
    return updateTicketType(context.scope, context.auth.organization.id, id, input);
  }

  @FieldResolver(() => Int, { description: 'Tickets held now by HELD bookings (D20); they count against quantity but not in sold.' })
  held(@Ctx() context: RequestContext, @Root() ticketType: { id: string; held?: number }): Promise<number> | number {
    // Read with its event where that statement counted it (see Event.heldCount), else batched per response.
    return ticketType.held ?? heldOf(context, ticketType.id);
  }

  @Mutation(() => TicketTypeEntity, { description: 'Removes a ticket type nothing is sold of; returns it as it was.' })
  @RequiresPermission('events:write')
  removeTicketType(@Ctx() context: RequestContext, @Arg('id', () => ID) id: string): Promise<TicketTypeEntity> {
    return removeTicketType(context.scope, context.auth.organization.id, id);
  }
}
