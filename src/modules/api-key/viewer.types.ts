import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { MemberEntity } from '../member/member.entity';

@ObjectType('ViewerOrganization', { description: "The caller's organization." })
export class ViewerOrganization {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field({ description: 'IANA timezone name: the default of new events.' })
  timezone!: string;

  @Field()
  plan!: string;

  @Field(() => Int, { description: 'Minutes a hold lasts when createBooking gives no holdMinutes (D20); 1 to 1440, default 15.' })
  holdMinutes!: number;

  @Field(() => Int, { description: 'Minutes a waiting-list offer is held for its entry (D21); 1 to 1440, default 60.' })
  waitlistOfferMinutes!: number;

  @Field(() => Int, { description: "Minutes before an event's start when its bookings stop changing hands (D29, transferBooking); 0 to 10080, default 0." })
  transferLockMinutes!: number;
}

@InputType('UpdateOrganizationInput', { description: 'Only the given fields change (the booking windows; access settings are for dashboard admins and the CLI).' })
export class UpdateOrganizationInput {
  @Field(() => Int, { nullable: true, description: 'Default length of a hold in minutes, 1 to 1440 (D20).' })
  holdMinutes?: number | null;

  @Field(() => Int, { nullable: true, description: 'Length of a waiting-list offer in minutes, 1 to 1440 (D21).' })
  waitlistOfferMinutes?: number | null;

  @Field(() => Int, { nullable: true, description: "Minutes before an event's start when transfers stop, 0 to 10080 (D29)." })
  transferLockMinutes?: number | null;
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

@ObjectType('Viewer', {
  description: 'Who is calling: the API key of this request, or the dashboard member whose session stands in for a key, and the organization.',
})
export class Viewer {
  @Field(() => ID, { nullable: true, description: 'The key id, key_…; null for a dashboard session.' })
  keyId!: string | null;

  @Field({ description: "The name given to the key; for a dashboard session, the member's name." })
  name!: string;

  @Field(() => String, { nullable: true, description: 'live or test; null for a dashboard session.' })
  environment!: string | null;

  @Field(() => MemberEntity, { nullable: true, description: 'The signed-in member of a dashboard session; null for an API key.' })
  member!: MemberEntity | null;

  @Field(() => [String], { description: 'What the caller may do (a session: ADMIN every permission, MEMBER the :read ones but audit:read).' })
  permissions!: string[];

  @Field(() => ViewerOrganization)
  organization!: ViewerOrganization;

  @Field(() => RateLimitBudget, { nullable: true, description: 'null where no budget applies: dashboard sessions (they do not draw from it) and in-process calls.' })
  rateLimit!: RateLimitBudget | null;
}
