import { Field, Int, ObjectType } from 'type-graphql';

/**
 * What every page of a list says beside its items (D25): the exact total, the page number and size of
 * a numbered page, and the cursor of the next page. Each list's type extends it with its items
 * (EventList, BookingList, WaitlistPage, WebhookMessageList, AuditLogList).
 */
@ObjectType()
export abstract class ListPage {
  @Field(() => Int, { description: 'Items matching the filters, on every page.' })
  total!: number;

  @Field(() => Int)
  page!: number;

  @Field(() => Int)
  limit!: number;

  @Field(() => String, {
    nullable: true,
    description: 'Pass as `after` for the next page of the same list (same filters and order); null on the last page. Opaque, valid for this organization and list only.',
  })
  nextCursor!: string | null;
}
