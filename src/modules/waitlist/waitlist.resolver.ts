import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../platform/graphql/request-context';
import { RequiresPermission } from '../../platform/graphql/requires-permission';
import { DEFAULT_LIMIT } from '../../foundation/validation/arguments';
import { WaitlistStatus } from './waitlist-entry.entity';
import { joinWaitlist } from './commands/join-waitlist';
import { leaveWaitlist } from './commands/leave-waitlist';
import { waitlistPage } from './waitlist.read-model';
import { JoinWaitlistInput, WaitlistEntry, WaitlistPage } from './waitlist.types';

@Resolver(() => WaitlistEntry)
export class WaitlistResolver {
  @Query(() => WaitlistPage, { description: "One event's waiting list in join order, with each WAITING entry's position (D21)." })
  @RequiresPermission('bookings:read')
  waitlist(
    @Ctx() context: RequestContext,
    @Arg('eventSlug') eventSlug: string,
    @Arg('page', () => Int, { defaultValue: 1, description: 'Page number, from 1.' }) page: number,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT, description: 'Page size, 1 to 100.' }) limit: number,
    @Arg('status', () => WaitlistStatus, { nullable: true, description: 'Only entries with this status (as read).' }) status?: WaitlistStatus | null,
    @Arg('after', () => String, {
      nullable: true,
      description: "A previous page's nextCursor (of this event and status): the page after it, instead of a page number.",
    })
    after?: string | null,
  ): Promise<WaitlistPage> {
    return waitlistPage(context, eventSlug, { page, limit, status, after });
  }

  @Mutation(() => WaitlistEntry, {
    description:
      'Joins the waiting list of a PUBLISHED event whose free seats (or the ticket type\'s) are fewer than quantity; SEATS_AVAILABLE when they are free (book them instead). Freed seats are offered in join order as HELD bookings (D21).',
  })
  @RequiresPermission('bookings:write')
  joinWaitlist(@Ctx() context: RequestContext, @Arg('input') input: JoinWaitlistInput): Promise<WaitlistEntry> {
    return joinWaitlist(context.scope, context.auth.organization.id, input);
  }

  @Mutation(() => WaitlistEntry, {
    description:
      'Leaves the waiting list: a WAITING entry becomes LEFT; an OFFERED one too, and its held booking is cancelled, its seats offered on. WAITLIST_ENTRY_NOT_WAITING when CONVERTED or EXPIRED (D21).',
  })
  @RequiresPermission('bookings:write')
  leaveWaitlist(@Ctx() context: RequestContext, @Arg('id', () => ID) id: string): Promise<WaitlistEntry> {
    return leaveWaitlist(context.scope, context.auth.organization.id, id);
  }
}
