import { Migration } from '@mikro-orm/migrations';

export class Migration20261122191621_bookings extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "bookings" drop constraint "bookings_ticket_type_id_foreign";`);

    this.addSql(`alter table "events" add constraint events_registration_count_capacity_check check(capacity is null or registration_count <= capacity);`);
    this.addSql(`alter table "events" add constraint events_registration_count_check check(registration_count >= 0);`);

    this.addSql(`alter table "ticket_types" add constraint ticket_types_sold_quantity_check check(sold <= quantity);`);
    this.addSql(`alter table "ticket_types" add constraint ticket_types_sold_check check(sold >= 0);`);
    this.addSql(`alter table "ticket_types" add constraint ticket_types_quantity_check check(quantity >= 0);`);

    this.addSql(`alter table "bookings" add constraint "bookings_ticket_type_id_foreign" foreign key ("ticket_type_id") references "ticket_types" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "bookings" add constraint bookings_quantity_check check(quantity >= 1);`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "bookings" drop constraint "bookings_ticket_type_id_foreign";`);

    this.addSql(`alter table "bookings" drop constraint bookings_quantity_check;`);

    this.addSql(`alter table "bookings" add constraint "bookings_ticket_type_id_foreign" foreign key ("ticket_type_id") references "ticket_types" ("id") on update cascade on delete restrict;`);

    this.addSql(`alter table "events" drop constraint events_registration_count_capacity_check;`);
    this.addSql(`alter table "events" drop constraint events_registration_count_check;`);

    this.addSql(`alter table "ticket_types" drop constraint ticket_types_sold_quantity_check;`);
    this.addSql(`alter table "ticket_types" drop constraint ticket_types_sold_check;`);
    this.addSql(`alter table "ticket_types" drop constraint ticket_types_quantity_check;`);
  }

}
