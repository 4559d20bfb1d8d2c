import { registerEnumType } from 'type-graphql';

export enum EventOrder {
  CREATED_AT_DESC = 'CREATED_AT_DESC',
  CREATED_AT_ASC = 'CREATED_AT_ASC',
  START_DATE_ASC = 'START_DATE_ASC',
  START_DATE_DESC = 'START_DATE_DESC',
}

registerEnumType(EventOrder, {
  name: 'EventOrder',
  description: 'Sort order of an event list; ties are broken by id in the same direction.',
});
