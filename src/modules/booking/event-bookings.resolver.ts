import { Arg, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../platform/graphql/request-context';
import { RequiresPermission } from '../../platform/graphql/requires-permission';
import { DEFAULT_LIMIT } from '../../foundation/validation/arguments';
import { EventEntity } from '../event/event.entity';
import { BookingStatus } from './booking.entity';
import { bookingPageOf } from './booking-pages.loader';
import { BookingList } from './booking.types';
import { cursorsOf } from '../../platform/graphql/list-cursors';

@Resolver(() => EventEntity)
export class EventBookingsResolver {
  // Nullable so that a key without bookings:read still gets the rest of the event (partial data).
  @FieldResolver(() => BookingList, { nullable: true, description: "The event's bookings, newest first (needs bookings:read)." })
  @RequiresPermission('bookings:read')
  bookings(
    @Ctx() context: RequestContext,
    @Root() event: Pick<EventEntity, 'id'>,
    @Arg('page', () => Int, { defaultValue: 1 }) page: number,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('status', () => BookingStatus, { nullable: true }) status?: BookingStatus | null,
  ): Promise<BookingList> {
    return bookingPageOf(context.em, event.id, { page, limit, status }, { cursors: cursorsOf(context), organizationId: context.auth.organization.id });
  }
}
