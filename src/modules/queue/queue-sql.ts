/*
 * SQL the queue's statements share (D30): the seats free for sale, the queue's settings as the API
 * shows them, a WAITING entry's position, and the Fenwick tree of LEFT ranks that keeps positions
 * exact in a constant number of index reads.
 *
 * Positions. An entry's `rank` is dense from 1 (the early joiners' drawn at onSaleAt, the later ones'
 * their join number), the admission passes ranks in order (`head`: the last one passed), so the
 * WAITING entries ahead of rank r are r − 1 − head less those between that left. The LEFT ranks of an
 * event are counted in `queue_leaves`, a Fenwick (binary indexed) tree over ranks 1..2^24: a leave
 * adds 1 to at most 24 nodes, and the count of LEFT ranks up to n is the sum of at most 24 nodes (one
 * index probe each), whatever the queue's length. Before the draw, the early joiners have no rank (no
 * position); the later ones are behind all of them, less the early ones who left (`early_left`).
 */

/** Ranks per event: 2^24 (the tree's size; event_queues.joined is checked below it). */
export const RANK_BITS = 24;

/** Seats of `e`'s holds past their expiresAt at `at` (free for clients, D20; the sweep frees them within seconds). */
const lapsedSql = (e: string, at: string) =>
  `coalesce((select sum(b.quantity) from bookings b where b.event_id = ${e}.id and b.status = 'HELD' and b.expires_at <= ${at}), 0)`;

/**
 * The seats of the event `e` (an events row) free for sale at `at` (null: nothing limits them): its
 * capacity less what its row and its slots hold (confirmed and held, a slotted event's being the sum
 * of its slots), lapsed holds given back; and no more than its ticket types have left together.
 */
export const freeSeatsSql = (e: string, at: string) => `(select case when r.event is null then r.types when r.types is null then r.event else least(r.event, r.types) end
       from (select ${e}.capacity - (${e}.registration_count + ${e}.held_count
                      + coalesce((select sum(s.taken) from event_slots s where s.event_id = ${e}.id), 0)) + ${lapsedSql(e, at)} as event,
                    (select sum(t.quantity - t.sold - t.held - coalesce((select sum(u.taken) from ticket_type_slots u where u.ticket_type_id = t.id), 0))
                       from ticket_types t where t.event_id = ${e}.id) as types) r)::int`;

/** Admissions of the event `e` neither used nor lapsed at `at` (the stock they may still take). */
export const outstandingSql = (e: string, at: string) =>
  `(select count(*) from queue_entries a where a.event_id = ${e}.id and a.status = 'ADMITTED' and a.admitted_until > ${at})::int`;

/** An ISO 8601 UTC timestamp with milliseconds (D5), as text. */
export const isoSql = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The event `e`'s queue settings as the API shows them (EventQueue), as JSON; null when it has none. */
export const queueSettingsJson = (e: string) => `case when ${e}.queue_admit_per_minute is null then null else json_build_object(
    'eventId', ${e}.id, 'enabled', ${e}.queue_enabled, 'opensAt', ${isoSql(`${e}.queue_opens_at`)}, 'onSaleAt', ${isoSql(`${e}.queue_on_sale_at`)},
    'admitPerMinute', ${e}.queue_admit_per_minute, 'admissionMinutes', ${e}.queue_admission_minutes, 'maxSeatsPerAdmission', ${e}.queue_max_seats) end`;

/** LEFT ranks of the entry `x`'s event up to rank `n` (an SQL integer): at most RANK_BITS index probes. */
const leftUpTo = (x: string, n: string) => `(select coalesce(sum(l.count), 0) from queue_leaves l
        where l.organization_id = ${x}.organization_id and l.event_id = ${x}.event_id
          and l.node = any (array(select (${n} >> k) << k from generate_series(0, ${RANK_BITS - 1}) k where ((${n}) >> k) & 1 = 1)))::int`;

/**
 * The position of the entry `x` in its queue `u` (event_queues row): null unless WAITING with a rank.
 * Its rank less the ranks passed and less those that left in between (before the draw: less the
 * early joiners who left).
 */
export const positionSql = (x: string, u: string) => `case when ${x}.status = 'WAITING' and ${x}.rank is not null then
         ${x}.rank - ${u}.head - case when ${u}.drawn_at is null then ${u}.early_left else 0 end
           - (${leftUpTo(x, `${x}.rank - 1`)} - ${leftUpTo(x, `${u}.head`)}) end`;

/**
 * The tree's nodes a LEFT rank `r` adds to (an SQL integer ≥ 1): every node m·2^k (m odd) whose
 * range (m·2^k − 2^k, m·2^k] holds r, in ascending order (concurrent leaves lock them in one order).
 */
export const leaveNodesSql = (r: string) => `select ((${r} - 1) / (1 << k) + 1) * (1 << k) as node from generate_series(0, ${RANK_BITS - 1}) k
        where ((${r} - 1) / (1 << k) + 1) % 2 = 1 order by 1`;
