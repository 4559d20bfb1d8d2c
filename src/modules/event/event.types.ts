import { Field, ObjectType } from 'type-graphql';
import { ListPage } from '../../platform/graphql/list-page';
import { EventEntity } from './event.entity';

@ObjectType('EventList', { description: 'One page of events, newest first.', simpleResolvers: true })
export class EventList extends ListPage {
  @Field(() => [EventEntity])
  events!: EventEntity[];
}

@ObjectType('DeletedEvent', { description: 'What was deleted; the deletion cannot be undone.' })
export class DeletedEvent {
  @Field()
  id!: string;

  @Field()
  slug!: string;
}
