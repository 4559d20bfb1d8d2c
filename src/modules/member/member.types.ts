import { Field, Int, ObjectType } from 'type-graphql';
import { MemberEntity } from './member.entity';

@ObjectType('MemberList', { description: 'One page of members, newest first.' })
export class MemberList {
  @Field(() => [MemberEntity])
  members!: MemberEntity[];

  @Field(() => Int)
  total!: number;

  @Field(() => Int)
  page!: number;

  @Field(() => Int)
  limit!: number;
}
