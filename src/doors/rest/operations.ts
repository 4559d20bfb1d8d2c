/**
 * The named GraphQL operations behind the /v1 routes. Parsed and validated against the schema once,
 * at start-up; a route runs its operation in-process with the request's own context.
 */
export const REST_OPERATIONS = /* GraphQL */ `
  # The spec's fields, and the counts of D20 (heldCount, checkedInCount, each ticket type's held):
  # both doors show them, so that a REST client can tell how many seats are free.
  fragment EventListItem on Event {
    id slug title description startDate endDate timezone venue status capacity registrationCount heldCount checkedInCount
    createdAt updatedAt
  }

  fragment FullEvent on Event {
    id slug title description startDate endDate timezone venue venueAddress coverImage status capacity
    registrationCount heldCount checkedInCount organizationId createdAt updatedAt
    ticketTypes { id name price currency quantity sold held }
  }

  query ListEvents(
    $page: Int, $limit: Int, $status: EventStatus, $startsAfter: DateTimeISO, $startsBefore: DateTimeISO, $search: String,
    $orderBy: EventOrder, $after: String
  ) {
    events(
      page: $page, limit: $limit, status: $status, startsAfter: $startsAfter, startsBefore: $startsBefore, search: $search,
      orderBy: $orderBy, after: $after
    ) { events { ...EventListItem } total page limit nextCursor }
  }

  query GetEvent($slug: String!) {
    event(slug: $slug) { ...FullEvent }
  }

  mutation CreateEvent($input: CreateEventInput!) {
    createEvent(input: $input) { ...FullEvent }
  }

  mutation UpdateEvent($slug: String!, $input: UpdateEventInput!) {
    updateEvent(slug: $slug, input: $input) { ...FullEvent }
  }

  mutation DeleteEvent($slug: String!) {
    deleteEvent(slug: $slug) { id slug }
  }

  # A booking as REST shows it: the fields, in the order, of its webhook payload (booking.presenter.ts).
  fragment Booking on Booking {
    id eventId eventSlug ticketTypeId quantity attendeeEmail attendeeName status createdAt cancelledAt expiresAt confirmedAt checkedInAt
  }

  query ListBookings($slug: String!, $page: Int, $limit: Int, $status: BookingStatus, $after: String) {
    bookings(eventSlug: $slug, page: $page, limit: $limit, status: $status, after: $after) { bookings { ...Booking } total page limit nextCursor }
  }

  mutation CreateBooking($input: CreateBookingInput!) {
    createBooking(input: $input) { ...Booking }
  }

  query GetBooking($id: ID!) {
    booking(id: $id) { ...Booking }
  }

  mutation ConfirmBooking($id: ID!) {
    confirmBooking(id: $id) { ...Booking }
  }

  mutation CancelBooking($id: ID!) {
    cancelBooking(id: $id) { ...Booking }
  }

  mutation CheckInBooking($id: ID!) {
    checkInBooking(id: $id) { ...Booking }
  }

  mutation UndoCheckIn($id: ID!) {
    undoCheckIn(id: $id) { ...Booking }
  }

  # A waiting-list entry as REST shows it (D21, D23).
  fragment WaitlistEntry on WaitlistEntry {
    id eventId eventSlug ticketTypeId quantity attendeeEmail attendeeName status position createdAt offeredAt offeredBookingId offerExpiresAt
  }

  query ListWaitlist($slug: String!, $page: Int, $limit: Int, $status: WaitlistStatus, $after: String) {
    waitlist(eventSlug: $slug, page: $page, limit: $limit, status: $status, after: $after) { entries { ...WaitlistEntry } total page limit nextCursor }
  }

  mutation JoinWaitlist($input: JoinWaitlistInput!) {
    joinWaitlist(input: $input) { ...WaitlistEntry }
  }

  mutation LeaveWaitlist($id: ID!) {
    leaveWaitlist(id: $id) { ...WaitlistEntry }
  }
`;
