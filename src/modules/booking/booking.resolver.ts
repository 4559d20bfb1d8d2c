import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../platform/graphql/request-context';
import { RequiresPermission } from '../../platform/graphql/requires-permission';
import { DEFAULT_LIMIT } from '../../foundation/validation/arguments';
import { EventEntity } from '../event/event.entity';
import { TicketTypeEntity } from '../ticket-type/ticket-type.entity';
import { BookingEntity, BookingStatus, effectiveBookingStatus } from './booking.entity';
import { CreateBookingInput, ExchangeBookingInput, TransferBookingInput } from './booking.inputs';
import { bookingById, bookingPage } from './booking.read-model';
import { cancelBooking } from './commands/cancel-booking';
import { checkInBooking, undoCheckIn } from './commands/check-in-booking';
import { createBooking } from './commands/create-booking';
import { confirmBooking } from './commands/confirm-booking';
import { checkInByCode } from './commands/check-in-by-code';
import { transferBooking } from './commands/transfer-booking';
import { exchangeBooking } from './commands/exchange-booking';
import { BookingList } from './booking.types';
import { noTicketCodes } from '../../platform/crypto/ticket-codes';

@Resolver(() => BookingEntity)
export class BookingResolver {
  @Query(() => BookingList, { description: "One event's bookings, newest first." })
  @RequiresPermission('bookings:read')
  bookings(
    @Ctx() context: RequestContext,
    @Arg('eventSlug') eventSlug: string,
    @Arg('page', () => Int, { defaultValue: 1, description: 'Page number, from 1.' }) page: number,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT, description: 'Page size, 1 to 100.' }) limit: number,
    @Arg('status', () => BookingStatus, { nullable: true }) status?: BookingStatus | null,
    @Arg('after', () => String, {
      nullable: true,
      description: "A previous page's nextCursor (of this event and status, from here or Event.bookings): the page after it, instead of a page number.",
    })
    after?: string | null,
  ): Promise<BookingList> {
    return bookingPage(context, eventSlug, { page, limit, status, after });
  }

  @Query(() => BookingEntity, {
    nullable: true,
    description: 'One booking by id; null (with a BOOKING_NOT_FOUND error at its path) when there is none.',
  })
  @RequiresPermission('bookings:read')
  booking(@Ctx() context: RequestContext, @Arg('id', () => ID) id: string): Promise<BookingEntity> {
    return bookingById(context.em, context.auth.organization.id, id);
  }

  @Mutation(() => BookingEntity, {
    description:
      "Books seats on a PUBLISHED event; SOLD_OUT when its capacity or the ticket type cannot take them. With the event's queue enabled (D30): queueEntryId of an ADMITTED entry of the same attendeeEmail; NOT_ON_SALE, QUEUE_REQUIRED, QUEUE_ENTRY_NOT_FOUND, ADMISSION_MISMATCH, NOT_ADMITTED, ADMISSION_USED, ADMISSION_EXPIRED.",
  })
  @RequiresPermission('bookings:write')
  createBooking(@Ctx() context: RequestContext, @Arg('input') input: CreateBookingInput): Promise<BookingEntity> {
    return createBooking(context.scope, context.auth.organization.id, input, context.auth.organization);
  }

  @Mutation(() => BookingEntity, {
    description:
      'Confirms a HELD booking before its expiresAt (its seats stay taken, now confirmed); a CONFIRMED one is answered unchanged. HOLD_EXPIRED past expiresAt, BOOKING_NOT_HELD when cancelled (D20).',
  })
  @RequiresPermission('bookings:write')
  confirmBooking(@Ctx() context: RequestContext, @Arg('id', () => ID) id: string): Promise<BookingEntity> {
    return confirmBooking(context.scope, context.auth.organization.id, id);
  }

  @Mutation(() => BookingEntity, { description: 'Cancels a CONFIRMED booking, or a HELD one before its expiresAt, and frees its seats.' })
  @RequiresPermission('bookings:write')
  cancelBooking(@Ctx() context: RequestContext, @Arg('id', () => ID) id: string): Promise<BookingEntity> {
    return cancelBooking(context.scope, context.auth.organization.id, id);
  }

  @Mutation(() => BookingEntity, {
    description:
      'Checks a CONFIRMED booking in at the door (D22): records checkedInAt once; ALREADY_CHECKED_IN when scanned again, BOOKING_NOT_CONFIRMED for HELD, CANCELLED or EXPIRED.',
  })
  @RequiresPermission('checkin:write')
  checkInBooking(@Ctx() context: RequestContext, @Arg('id', () => ID) id: string): Promise<BookingEntity> {
    return checkInBooking(context.scope, context.auth.organization.id, id);
  }

  @Mutation(() => BookingEntity, { description: "Clears a CONFIRMED booking's check-in (D22); NOT_CHECKED_IN when it has none." })
  @RequiresPermission('checkin:write')
  undoCheckIn(@Ctx() context: RequestContext, @Arg('id', () => ID) id: string): Promise<BookingEntity> {
    return undoCheckIn(context.scope, context.auth.organization.id, id);
  }

  // The door's code (D29): shown to whoever may read bookings, never in a webhook or a log line.
  @FieldResolver(() => String, {
    nullable: true,
    description:
      'The ticket code a gate scans (checkInByCode; a storefront shows it as a QR code): tk_ and 24 letters and digits, URL-safe. Issued when the booking is CONFIRMED (a hold gets one when confirmed), replaced by a transfer or an exchange. null while it has none (D29).',
  })
  @RequiresPermission('bookings:read')
  ticketCode(@Root() booking: BookingEntity, @Ctx() context: RequestContext): string | null {
    if (booking.ticketCode !== undefined) return booking.ticketCode;
    return booking.ticketCodeSealed == null ? null : (context.ticketCodes ?? noTicketCodes()).open(booking.ticketCodeSealed);
  }

  @Mutation(() => BookingEntity, {
    description:
      'Checks in the booking whose ticketCode a gate of event eventSlug scanned (D29, by the rules of D22: one winner, ALREADY_CHECKED_IN). TICKET_TRANSFERRED for a code a transfer or an exchange replaced (before any other check), TICKET_NOT_FOUND for an unknown code, WRONG_EVENT for a ticket of another event.',
  })
  @RequiresPermission('checkin:write')
  checkInByCode(@Ctx() context: RequestContext, @Arg('code') code: string, @Arg('eventSlug') eventSlug: string): Promise<BookingEntity> {
    return checkInByCode(context.scope, context.auth.organization.id, code, eventSlug);
  }

  @Mutation(() => BookingEntity, {
    description:
      "Gives a CONFIRMED booking, not checked in, to another attendee before its event's lock (the start less the organization's transferLockMinutes): a new ticketCode, the old one superseded; seats untouched (D29). BOOKING_NOT_CONFIRMED, BOOKING_CHECKED_IN, TRANSFER_LOCKED.",
  })
  @RequiresPermission('bookings:write')
  transferBooking(
    @Ctx() context: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => TransferBookingInput) input: TransferBookingInput,
  ): Promise<BookingEntity> {
    return transferBooking(context.scope, context.auth.organization.id, id, input);
  }

  @Mutation(() => BookingEntity, {
    description:
      "Moves a CONFIRMED booking, not checked in, before its event's lock, to another event of the organization (a ticket type of it required when it has some), keeping its id: seats taken there and freed here in one transaction (freed seats offered to this event's waiting list), a new ticketCode, the old one superseded (D29). BOOKING_NOT_CONFIRMED, BOOKING_CHECKED_IN, TRANSFER_LOCKED, EVENT_NOT_FOUND, EVENT_NOT_PUBLISHED, TICKET_TYPE_NOT_FOUND, SOLD_OUT (nothing changed).",
  })
  @RequiresPermission('bookings:write')
  exchangeBooking(
    @Ctx() context: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => ExchangeBookingInput) input: ExchangeBookingInput,
  ): Promise<BookingEntity> {
    return exchangeBooking(context.scope, context.auth.organization.id, id, input);
  }

  @FieldResolver(() => BookingStatus, { description: 'A HELD booking reads EXPIRED from its expiresAt on (D20).' })
  status(@Root() booking: BookingEntity): BookingStatus {
    return effectiveBookingStatus(booking);
  }

  @FieldResolver(() => String, { description: 'The booked event, evt_….' })
  eventId(@Root() booking: BookingEntity): string {
    return booking.event.id;
  }

  @FieldResolver(() => ID, {
    nullable: true,
    description: 'The booked ticket type, tt_…; null when booked without one (the same as ticketType { id }, without loading it).',
  })
  ticketTypeId(@Root() booking: BookingEntity): string | null {
    return booking.ticketType?.id ?? null;
  }

  @FieldResolver(() => String)
  async eventSlug(@Root() booking: BookingEntity): Promise<string> {
    return booking.eventSlug ?? (await booking.event.loadOrFail({ dataloader: true })).slug;
  }

  // Event details are event data: a key that may read bookings but not events gets FORBIDDEN here only.
  @FieldResolver(() => EventEntity, { nullable: true, description: 'The booked event (needs events:read).' })
  @RequiresPermission('events:read')
  event(@Root() booking: BookingEntity): Promise<EventEntity> {
    return booking.event.loadOrFail({ dataloader: true });
  }

  @FieldResolver(() => TicketTypeEntity, { nullable: true, description: 'null when booked without a ticket type.' })
  async ticketType(@Root() booking: BookingEntity): Promise<TicketTypeEntity | null> {
    return booking.ticketType ? booking.ticketType.load({ dataloader: true }) : null;
  }
}
