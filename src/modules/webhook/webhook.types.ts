import { GraphQLDateTimeISO, GraphQLJSONObject } from 'graphql-scalars';
import { ListPage } from '../../platform/graphql/list-page';
import { Field, Float, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

export enum WebhookMessageStatus {
  PENDING = 'PENDING',
  SUCCEEDED = 'SUCCEEDED',
  FAILED = 'FAILED',
}

registerEnumType(WebhookMessageStatus, {
  name: 'WebhookMessageStatus',
  description: 'PENDING until an attempt gets a 2xx (SUCCEEDED) or the retry schedule runs out (FAILED).',
});

@InputType('CreateWebhookEndpointInput')
export class CreateWebhookEndpointInput {
  @Field({ description: 'https URL with a public address (D18).' })
  url!: string;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => [String], { nullable: true, description: 'Message types to send; empty or absent means all.' })
  eventTypes?: string[] | null;

  @Field(() => Boolean, { nullable: true, description: 'Default true.' })
  enabled?: boolean | null;
}

@InputType('UpdateWebhookEndpointInput')
export class UpdateWebhookEndpointInput {
  @Field(() => String, { nullable: true })
  url?: string | null;

  @Field(() => String, { nullable: true, description: 'null clears it.' })
  description?: string | null;

  @Field(() => [String], { nullable: true })
  eventTypes?: string[] | null;

  @Field(() => Boolean, { nullable: true, description: 'true re-enables an endpoint the service disabled.' })
  enabled?: boolean | null;
}

@ObjectType('WebhookEndpointWithSecret', { description: 'An endpoint with its signing secret: shown this once.' })
export class WebhookEndpointWithSecret {
  @Field(() => WebhookEndpointEntity)
  endpoint!: WebhookEndpointEntity;

  @Field({ description: 'whsec_ + base64 of 32 bytes; verify messages with it (Standard Webhooks).' })
  secret!: string;
}

@ObjectType('DeletedWebhookEndpoint')
export class DeletedWebhookEndpoint {
  @Field()
  id!: string;
}

@ObjectType('WebhookAttempt', { description: 'One delivery attempt, as it happened.' })
export class WebhookAttempt {
  @Field(() => Int, { description: '1 for the first attempt of this message to this endpoint.' })
  attemptNumber!: number;

  @Field(() => GraphQLDateTimeISO)
  attemptedAt!: Date;

  @Field(() => Int, { nullable: true, description: 'HTTP status of the response; null when none came.' })
  statusCode!: number | null;

  @Field(() => Float, { description: 'Milliseconds from the start of the attempt to its outcome.' })
  durationMs!: number;

  @Field(() => String, { nullable: true, description: 'Why it failed (HTTP status, timeout, connection error, refused destination).' })
  error!: string | null;

  @Field(() => String, { nullable: true, description: 'The first 1 KiB of the response body.' })
  responseBody!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'The W3C trace id of the attempt (its `traceparent` went to the receiver); null when tracing was off.',
  })
  traceId!: string | null;
}

@ObjectType('WebhookMessage', { description: 'A message to one endpoint, with every attempt.' })
export class WebhookMessage {
  @Field({ description: 'msg_…: the webhook-id header, the same on every attempt.' })
  id!: string;

  @Field()
  type!: string;

  @Field(() => GraphQLJSONObject, { description: 'The body sent: {type, timestamp, data}.' })
  payload!: Record<string, unknown>;

  @Field(() => WebhookMessageStatus)
  status!: WebhookMessageStatus;

  @Field(() => GraphQLDateTimeISO)
  createdAt!: Date;

  @Field(() => GraphQLDateTimeISO, { nullable: true, description: 'When the next attempt is due while PENDING.' })
  nextAttemptAt!: Date | null;

  @Field(() => [WebhookAttempt], { description: 'Oldest first.' })
  attempts!: WebhookAttempt[];
}

@ObjectType('WebhookMessageList', { description: 'One page of an endpoint’s messages, newest first.' })
export class WebhookMessageList extends ListPage {
  @Field(() => [WebhookMessage])
  messages!: WebhookMessage[];
}
