import { Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType('ViewerOrganization', { description: "The calling key's organization." })
export class ViewerOrganization {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field({ description: 'IANA timezone name: the default of new events.' })
  timezone!: string;

  @Field()
  plan!: string;
}

@ObjectType('RateLimitBudget', { description: "The organization's request budget (D12), after this request." })
export class RateLimitBudget {
  @Field(() => Int, { description: 'Requests allowed per minute.' })
  limit!: number;

  @Field(() => Int, { description: 'Requests left in the current window.' })
  remaining!: number;

  @Field(() => Int, { description: 'Seconds until the window starts again.' })
  resetSeconds!: number;
}

@ObjectType('Viewer', { description: 'Who is calling: the API key of this request and its organization.' })
export class Viewer {
  @Field(() => ID, { description: 'The key id, key_….' })
  keyId!: string;

  @Field({ description: 'The name given to the key.' })
  name!: string;

  @Field({ description: 'live or test.' })
  environment!: string;

  @Field(() => [String], { description: 'What the key may do.' })
  permissions!: string[];

  @Field(() => ViewerOrganization)
  organization!: ViewerOrganization;

  @Field(() => RateLimitBudget, { nullable: true, description: 'null only where no budget applies (in-process calls).' })
  rateLimit!: RateLimitBudget | null;
}
