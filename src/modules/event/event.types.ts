import { Field, Int, ObjectType } from 'type-graphql';
import { EventEntity } from './event.entity';

@ObjectType('EventList', { description: 'One page of events, newest first.', simpleResolvers: true })
export class EventList {
  @Field(() => [EventEntity])
  events!: EventEntity[];

  @Field(() => Int, { description: 'Events matching the filter, on every page.' })
  total!: number;

  @Field(() => Int)
  page!: number;

  @Field(() => Int)
  limit!: number;

  @Field(() => String, {
    nullable: true,
    description: 'Pass as `after` for the next page (same filters and order); null on the last page. Opaque, valid for this organization and list only.',
  })
  nextCursor!: string | null;
}

@ObjectType('DeletedEvent', { description: 'What was deleted; the deletion cannot be undone.' })
export class DeletedEvent {
  @Field()
  id!: string;

  @Field()
  slug!: string;
}
