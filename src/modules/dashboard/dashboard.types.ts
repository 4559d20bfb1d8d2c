import { GraphQLDateTimeISO } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { MemberEntity, MemberRole } from '../member/member.entity';

@ObjectType('ApiKey', { description: 'An API key of the organization, never its secret (D9, D19).' })
export class ApiKeyView {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field({ description: 'live or test (a label; both reach the same data).' })
  environment!: string;

  @Field({ description: 'The first characters of the key, to tell keys apart.' })
  prefix!: string;

  @Field(() => [String], { description: 'The scopes the key was given.' })
  permissions!: string[];

  @Field(() => [String], { description: "What the key can do now: its scopes intersected with its creator's current permissions." })
  effectivePermissions!: string[];

  @Field(() => MemberEntity, { nullable: true, description: 'The member who made the key in the dashboard; null for CLI keys and removed creators.' })
  createdBy!: MemberEntity | null;

  @Field({ description: 'True when made in the dashboard (then it inherits its creator\'s permissions).' })
  createdInDashboard!: boolean;

  @Field({ description: 'ACTIVE, EXPIRED or REVOKED.' })
  status!: string;

  @Field(() => GraphQLDateTimeISO)
  createdAt!: Date;

  @Field(() => GraphQLDateTimeISO, { nullable: true })
  expiresAt!: Date | null;

  @Field(() => GraphQLDateTimeISO, { nullable: true })
  lastUsedAt!: Date | null;

  @Field(() => GraphQLDateTimeISO, { nullable: true })
  revokedAt!: Date | null;
}

@ObjectType('CreatedApiKey', { description: 'A new key: `key` is its secret, shown this once and never again.' })
export class CreatedApiKey {
  @Field(() => ApiKeyView)
  apiKey!: ApiKeyView;

  @Field()
  key!: string;
}

@ObjectType('RotatedApiKey', { description: 'A replacement key (secret shown once); the previous one works until its new expiresAt.' })
export class RotatedApiKey {
  @Field(() => ApiKeyView)
  apiKey!: ApiKeyView;

  @Field()
  key!: string;

  @Field(() => ApiKeyView)
  previous!: ApiKeyView;
}

@InputType('CreateApiKeyInput')
export class CreateApiKeyInput {
  @Field({ description: '1 to 200 characters.' })
  name!: string;

  @Field({ defaultValue: 'live', description: 'live or test.' })
  environment!: string;

  @Field(() => [String], { description: 'Permission names (D2); at least one.' })
  permissions!: string[];

  @Field(() => GraphQLDateTimeISO, { nullable: true, description: 'Optional; in the future.' })
  expiresAt?: Date | null;
}

@ObjectType('Organization', { description: "The signed-in member's organization and its settings." })
export class OrganizationView {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field({ description: 'STANDARD or ENTERPRISE.' })
  plan!: string;

  @Field({ description: "IANA name; the default timezone of the organization's events." })
  timezone!: string;

  @Field(() => [String], { description: 'Addresses or CIDR ranges (ENTERPRISE only).' })
  allowedIPs!: string[];

  @Field({ description: 'STRICT or OFF (STRICT for ENTERPRISE only).' })
  restrictionMode!: string;

  @Field(() => Int, { nullable: true, description: 'Requests a minute for all keys; null is the server default.' })
  rateLimitPerMinute!: number | null;

  @Field(() => Int, { description: 'Minutes a hold lasts when createBooking gives no holdMinutes (D20); 1 to 1440.' })
  holdMinutes!: number;

  @Field(() => Int, { description: 'Minutes a waiting-list offer is held for its entry (D21); 1 to 1440.' })
  waitlistOfferMinutes!: number;

  @Field(() => Int, { description: "Minutes before an event's start when its bookings stop changing hands (D29); 0 to 10080." })
  transferLockMinutes!: number;
}

@InputType('UpdateOrganizationSettingsInput', { description: 'Only the given fields change.' })
export class UpdateOrganizationSettingsInput {
  @Field(() => String, { nullable: true })
  timezone?: string | null;

  @Field(() => [String], { nullable: true, description: 'ENTERPRISE only; an empty list clears it.' })
  allowedIPs?: string[] | null;

  @Field(() => String, { nullable: true, description: 'STRICT or OFF; STRICT for ENTERPRISE only.' })
  restrictionMode?: string | null;

  @Field(() => Int, { nullable: true, description: 'Default length of a hold in minutes, 1 to 1440 (D20).' })
  holdMinutes?: number | null;

  @Field(() => Int, { nullable: true, description: 'Length of a waiting-list offer in minutes, 1 to 1440 (D21).' })
  waitlistOfferMinutes?: number | null;

  @Field(() => Int, { nullable: true, description: "Minutes before an event's start when transfers stop, 0 to 10080 (D29)." })
  transferLockMinutes?: number | null;
}

@InputType('InviteMemberInput')
export class InviteMemberInput {
  @Field()
  email!: string;

  @Field()
  name!: string;

  @Field(() => MemberRole, { defaultValue: MemberRole.MEMBER })
  role!: MemberRole;
}

@ObjectType('MemberInvitation', { description: 'A one-time link (24 h) where the member sets a password; shown once.' })
export class MemberInvitation {
  @Field(() => MemberEntity)
  member!: MemberEntity;

  @Field({ description: 'The link, starting with PUBLIC_URL.' })
  url!: string;

  @Field({ description: 'The link without its origin (/dashboard/#/invite/…).' })
  path!: string;

  @Field(() => GraphQLDateTimeISO)
  expiresAt!: Date;
}

@ObjectType('KeyUsage', { description: 'One key over the report days.' })
export class KeyUsage {
  @Field(() => ID)
  apiKeyId!: string;

  @Field()
  name!: string;

  @Field()
  prefix!: string;

  @Field(() => [Int], { description: 'Requests each day, in the order of UsageReport.days.' })
  requests!: number[];

  @Field(() => [Int], { description: 'Rate-limited requests each day.' })
  rateLimited!: number[];
}

@ObjectType('UsageReport', { description: 'Requests a day per key and rate-limited requests (UTC days, oldest first).' })
export class UsageReport {
  @Field(() => [String], { description: 'The days, YYYY-MM-DD.' })
  days!: string[];

  @Field(() => [KeyUsage])
  keys!: KeyUsage[];

  @Field(() => [Int], { description: 'Rate-limited requests each day, all keys.' })
  rateLimited!: number[];
}
