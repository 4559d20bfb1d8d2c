import { Field, ID, ObjectType } from 'type-graphql';
import { ListPage } from '../../platform/graphql/list-page';
import { SeriesEntity } from './series.entity';

@ObjectType('SeriesList', { description: "One page of the organization's series, newest first.", simpleResolvers: true })
export class SeriesList extends ListPage {
  @Field(() => [SeriesEntity])
  series!: SeriesEntity[];
}

@ObjectType('EventSeries', { description: 'The series an event is an occurrence of (D28).', simpleResolvers: true })
export class EventSeries {
  @Field(() => ID)
  id!: string;

  @Field()
  slug!: string;
}

@ObjectType('DeletedSeries', { description: 'What was deleted: the series and its occurrences; it cannot be undone.', simpleResolvers: true })
export class DeletedSeries {
  @Field(() => ID)
  id!: string;

  @Field()
  slug!: string;

  @Field(() => [ID], { description: 'The events (occurrences) deleted with it.' })
  deletedOccurrences!: string[];
}
