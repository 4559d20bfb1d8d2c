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
    queue { enabled opensAt onSaleAt admitPerMinute admissionMinutes maxSeatsPerAdmission }
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

  # A booking as REST shows it: the fields, in the order, of its webhook payload (booking.presenter.ts),
  # then its ticketCode (D29) for a key holding bookings:read, never in a webhook: the door sets
  # $mayReadBookings from the caller's permissions (rest-executor.ts, PERMISSION_VARIABLES).
  fragment Booking on Booking {
    id eventId eventSlug ticketTypeId quantity attendeeEmail attendeeName status createdAt cancelledAt expiresAt confirmedAt checkedInAt
    ticketCode @include(if: $mayReadBookings)
  }

  query ListBookings($slug: String!, $page: Int, $limit: Int, $status: BookingStatus, $after: String, $mayReadBookings: Boolean = false) {
    bookings(eventSlug: $slug, page: $page, limit: $limit, status: $status, after: $after) { bookings { ...Booking } total page limit nextCursor }
  }

  mutation CreateBooking($input: CreateBookingInput!, $mayReadBookings: Boolean = false) {
    createBooking(input: $input) { ...Booking }
  }

  query GetBooking($id: ID!, $mayReadBookings: Boolean = false) {
    booking(id: $id) { ...Booking }
  }

  mutation ConfirmBooking($id: ID!, $mayReadBookings: Boolean = false) {
    confirmBooking(id: $id) { ...Booking }
  }

  mutation CancelBooking($id: ID!, $mayReadBookings: Boolean = false) {
    cancelBooking(id: $id) { ...Booking }
  }

  mutation CheckInBooking($id: ID!, $mayReadBookings: Boolean = false) {
    checkInBooking(id: $id) { ...Booking }
  }

  mutation UndoCheckIn($id: ID!, $mayReadBookings: Boolean = false) {
    undoCheckIn(id: $id) { ...Booking }
  }

  # D29: a gate scans a ticket code; a booking changes hands.
  mutation CheckInByCode($code: String!, $eventSlug: String!, $mayReadBookings: Boolean = false) {
    checkInByCode(code: $code, eventSlug: $eventSlug) { ...Booking }
  }

  mutation TransferBooking($id: ID!, $input: TransferBookingInput!, $mayReadBookings: Boolean = false) {
    transferBooking(id: $id, input: $input) { ...Booking }
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

  # The on-sale queue (D30): an entry as a storefront polls it; "created" decides a join's status (201 or 200) only.
  fragment QueueEntry on QueueEntry {
    id eventId eventSlug attendeeEmail attendeeName status position estimatedWaitSeconds pollAfterSeconds joinedAt admittedAt admittedUntil usedAt bookingId
  }

  mutation JoinQueue($slug: String!, $input: JoinQueueInput!) {
    joinQueue(eventSlug: $slug, input: $input) { ...QueueEntry created }
  }

  query GetQueueEntry($id: ID!) {
    queueEntry(id: $id) { ...QueueEntry }
  }

  mutation LeaveQueue($id: ID!) {
    leaveQueue(id: $id) { ...QueueEntry }
  }

  query QueueStats($slug: String!) {
    queueStats(eventSlug: $slug) { waiting admitted used admittedLastMinute }
  }
`;
