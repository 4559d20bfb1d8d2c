import { Migration } from '@mikro-orm/migrations';

/**
 * A fair on-sale queue that knows the stock (D30; src/modules/queue/).
 *
 * The settings are columns of `events` (`queue_*`): the booking statement reads them with the event, so
 * an event without a queue books as before (its gate is one condition on columns it already reads).
 * `queue_admit_per_minute` is null until a queue was set up (Event.queue is null then).
 *
 * `event_queues`: one row per event whose queue someone joined (made by the first join): the queue's
 * counters, changed under that row's lock by joins, leaves and the admission job (never by a booking):
 * `joined` numbers the entries (an entry's `seq`), `early` is how many joined before `onSaleAt` (fixed by
 * the first later join or by the draw), `early_left` those of them who left before the draw, `head` the
 * last rank the admission passed, `waiting` the WAITING entries, `pace_ms` the next admission's slot
 * (milliseconds since the epoch, fractional: at 100,000 a minute a slot is 0.6 ms).
 *
 * `queue_entries`: `rank` is the entry's place in the queue, dense from 1: the early joiners' drawn at
 * `onSaleAt` (1..early), the later ones' their `seq`. A WAITING entry's position is its rank less the
 * ranks passed (`head`) and less the entries that left between (`queue_leaves`, a Fenwick tree of
 * LEFT ranks per event): a constant number of index reads whatever the queue's length.
 *
 * Indexes: an attendee's entry per event (unique while not LEFT); the WAITING entries by rank (the
 * admission takes the next ones); the outstanding admissions by expiry (the stock bound, the
 * expiry flip); admissions by time (the rate window, `admittedLastMinute`); the early joiners by seq
 * (the draw); entries by status (the stats).
 */
export class Migration20261201010000_queue extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "events"
      add column "queue_enabled" boolean not null default false,
      add column "queue_opens_at" timestamptz(3) null,
      add column "queue_on_sale_at" timestamptz(3) null,
      add column "queue_admit_per_minute" int null,
      add column "queue_admission_minutes" int not null default 10,
      add column "queue_max_seats" int not null default 4;`);
    this.addSql(`alter table "events"
      add constraint "events_queue_admit_per_minute_check" check ("queue_admit_per_minute" between 1 and 100000),
      add constraint "events_queue_admission_minutes_check" check ("queue_admission_minutes" between 1 and 60),
      add constraint "events_queue_max_seats_check" check ("queue_max_seats" between 1 and 20),
      add constraint "events_queue_enabled_check" check (not "queue_enabled" or "queue_admit_per_minute" is not null);`);

    this.addSql(`create table "event_queues" (
      "organization_id" varchar(40) not null,
      "event_id" varchar(40) not null,
      "joined" int not null default 0,
      "waiting" int not null default 0,
      "early" int null,
      "early_left" int not null default 0,
      "head" int not null default 0,
      "drawn_at" timestamptz(3) null,
      "pace_ms" double precision null,
      "sold_out_at" timestamptz(3) null,
      constraint "event_queues_pkey" primary key ("organization_id", "event_id"),
      constraint "event_queues_counts_check" check ("waiting" >= 0 and "head" >= 0 and "early_left" >= 0 and "joined" < 16777216)
    );`);
    this.addSql(`alter table "event_queues" add constraint "event_queues_event_id_foreign" foreign key ("organization_id", "event_id") references "events" ("organization_id", "id") on update cascade on delete cascade;`);
    this.addSql(`create index "event_queues_open_index" on "event_queues" ("event_id") where "sold_out_at" is null;`);

    this.addSql(`create table "queue_entries" (
      "organization_id" varchar(40) not null,
      "id" varchar(40) not null,
      "event_id" varchar(40) not null,
      "attendee_email" varchar(254) not null,
      "attendee_name" varchar(200) null,
      "status" text not null default 'WAITING',
      "seq" int not null,
      "rank" int null,
      "joined_at" timestamptz(3) not null,
      "admitted_at" timestamptz(3) null,
      "admitted_until" timestamptz(3) null,
      "used_at" timestamptz(3) null,
      "booking_id" varchar(40) null,
      "left_at" timestamptz(3) null,
      "sold_out_at" timestamptz(3) null,
      constraint "queue_entries_pkey" primary key ("organization_id", "id"),
      constraint "queue_entries_status_check" check ("status" in ('WAITING', 'ADMITTED', 'USED', 'EXPIRED', 'SOLD_OUT', 'LEFT')),
      constraint "queue_entries_admitted_check" check ("status" not in ('ADMITTED', 'USED', 'EXPIRED') or "admitted_until" is not null)
    );`);
    this.addSql(`alter table "queue_entries" add constraint "queue_entries_event_id_foreign" foreign key ("organization_id", "event_id") references "events" ("organization_id", "id") on update cascade on delete cascade;`);
    this.addSql(`create unique index "queue_entries_attendee_unique" on "queue_entries" ("organization_id", "event_id", lower("attendee_email")) where "status" <> 'LEFT';`);
    this.addSql(`create index "queue_entries_waiting_index" on "queue_entries" ("event_id", "rank") where "status" = 'WAITING';`);
    this.addSql(`create index "queue_entries_admitted_index" on "queue_entries" ("event_id", "admitted_until") where "status" = 'ADMITTED';`);
    this.addSql(`create index "queue_entries_admitted_at_index" on "queue_entries" ("event_id", "admitted_at") where "admitted_at" is not null;`);
    this.addSql(`create index "queue_entries_unranked_index" on "queue_entries" ("event_id", "seq") where "rank" is null;`);
    this.addSql(`create index "queue_entries_status_index" on "queue_entries" ("event_id", "status");`);

    this.addSql(`create table "queue_leaves" (
      "organization_id" varchar(40) not null,
      "event_id" varchar(40) not null,
      "node" int not null,
      "count" int not null,
      constraint "queue_leaves_pkey" primary key ("organization_id", "event_id", "node")
    );`);
    this.addSql(`alter table "queue_leaves" add constraint "queue_leaves_event_id_foreign" foreign key ("organization_id", "event_id") references "events" ("organization_id", "id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "queue_leaves" cascade;`);
    this.addSql(`drop table if exists "queue_entries" cascade;`);
    this.addSql(`drop table if exists "event_queues" cascade;`);
    this.addSql(`alter table "events" drop constraint "events_queue_enabled_check", drop constraint "events_queue_max_seats_check",
      drop constraint "events_queue_admission_minutes_check", drop constraint "events_queue_admit_per_minute_check";`);
    this.addSql(`alter table "events" drop column "queue_enabled", drop column "queue_opens_at", drop column "queue_on_sale_at",
      drop column "queue_admit_per_minute", drop column "queue_admission_minutes", drop column "queue_max_seats";`);
  }
}
