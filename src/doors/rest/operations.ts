/**
 * The named GraphQL operations behind the /v1 routes. Parsed and validated against the schema once,
 * at start-up; a route runs its operation in-process with the request's own context.
 */
export const REST_OPERATIONS = /* GraphQL */ `
  # The spec's fields, and the counts of D20 (heldCount, checkedInCount, each ticket type's held):
  # both doors show them, so that a REST client can tell how many seats are free.
  # And the series an event is an occurrence of (D28), null for the others.
  fragment EventListItem on Event {
    id slug title description startDate endDate timezone venue status capacity registrationCount heldCount checkedInCount
    createdAt updatedAt series { id slug }
  }

  fragment FullEvent on Event {
    id slug title description startDate endDate timezone venue venueAddress coverImage status capacity
    registrationCount heldCount checkedInCount organizationId createdAt updatedAt series { id slug }
    ticketTypes { id name price currency quantity sold held }
    queue { enabled opensAt onSaleAt admitPerMinute admissionMinutes maxSeatsPerAdmission }
  }

  query ListEvents(
    $page: Int, $limit: Int, $status: EventStatus, $startsAfter: DateTimeISO, $startsBefore: DateTimeISO, $search: String,
    $series: String, $orderBy: EventOrder, $after: String
  ) {
    events(
      page: $page, limit: $limit, status: $status, startsAfter: $startsAfter, startsBefore: $startsBefore, search: $search,
      series: $series, orderBy: $orderBy, after: $after
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

  # D29: a gate scans a ticket code; a booking changes hands, or moves to another event.
  mutation CheckInByCode($code: String!, $eventSlug: String!, $mayReadBookings: Boolean = false) {
    checkInByCode(code: $code, eventSlug: $eventSlug) { ...Booking }
  }

  mutation TransferBooking($id: ID!, $input: TransferBookingInput!, $mayReadBookings: Boolean = false) {
    transferBooking(id: $id, input: $input) { ...Booking }
  }

  mutation ExchangeBooking($id: ID!, $input: ExchangeBookingInput!, $mayReadBookings: Boolean = false) {
    exchangeBooking(id: $id, input: $input) { ...Booking }
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

  # Event series (D28): the series as REST shows it (its webhook messages carry the same fields: series.presenter.ts).
  fragment FullSeries on Series {
    id slug title description venue venueAddress coverImage capacity ticketTypes { name price currency quantity }
    timezone firstStart durationMinutes recurrence version occurrenceCount organizationId createdAt updatedAt
  }

  fragment SeriesPlanBody on SeriesPlan {
    version
    create { eventId slug start localStart fields }
    update { eventId slug start localStart fields }
    delete { eventId slug start localStart fields }
    move { eventId slug toSlug start from to localStart booked fields }
    skip { eventId slug start reason }
  }

  query ListSeries($page: Int, $limit: Int, $after: String) {
    seriesList(page: $page, limit: $limit, after: $after) { series { ...FullSeries } total page limit nextCursor }
  }

  mutation CreateSeries($input: CreateSeriesInput!) {
    createSeries(input: $input) { ...FullSeries }
  }

  query GetSeries($slug: String!) {
    series(slug: $slug) { ...FullSeries }
  }

  mutation UpdateSeries(
    $slug: String!, $changes: SeriesChangesInput, $scope: SeriesScope, $from: String, $newSlug: String, $expectedVersion: Int!, $moveBooked: Boolean
  ) {
    updateSeries(slug: $slug, changes: $changes, scope: $scope, from: $from, newSlug: $newSlug, expectedVersion: $expectedVersion, moveBooked: $moveBooked) {
      ...FullSeries plan { ...SeriesPlanBody } newSeries { ...FullSeries }
    }
  }

  mutation PreviewSeriesChange(
    $slug: String!, $changes: SeriesChangesInput, $scope: SeriesScope, $from: String, $newSlug: String, $expectedVersion: Int, $moveBooked: Boolean
  ) {
    previewSeriesChange(slug: $slug, changes: $changes, scope: $scope, from: $from, newSlug: $newSlug, expectedVersion: $expectedVersion, moveBooked: $moveBooked) {
      ...SeriesPlanBody
    }
  }

  mutation DeleteSeries($slug: String!) {
    deleteSeries(slug: $slug) { id slug deletedOccurrences }
  }

  query ListSeriesOccurrences($slug: String!, $page: Int, $limit: Int, $after: String) {
    seriesOccurrences(slug: $slug, page: $page, limit: $limit, after: $after) { events { ...EventListItem } total page limit nextCursor }
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
