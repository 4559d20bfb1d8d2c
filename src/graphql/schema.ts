import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { lexicographicSortSchema, specifiedDirectives, type GraphQLSchema } from 'graphql';
import { GraphQLDateTimeISO } from 'graphql-scalars';
import { buildSchemaSync, type NonEmptyArray } from 'type-graphql';
import { BookingResolver } from '../modules/booking/booking.resolver';
import { EventBookingsResolver } from '../modules/booking/event-bookings.resolver';
import { EventResolver } from '../modules/event/event.resolver';
import { MemberResolver } from '../modules/member/member.resolver';
import { TicketTypeResolver } from '../modules/ticket-type/ticket-type.resolver';
import { WebhookResolver } from '../modules/webhook/webhook.resolver';
import { enforcePermissions, requiresPermissionDirective } from './requires-permission';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
const RESOLVERS: NonEmptyArray<Function> = [
  EventResolver,
  TicketTypeResolver,
  BookingResolver,
  EventBookingsResolver,
  MemberResolver,
  WebhookResolver,
];

/** The one schema both doors execute against, with every permission enforced. Built once at start. */
export function buildAppSchema(): GraphQLSchema {
  const schema = buildSchemaSync({
    resolvers: RESOLVERS,
    directives: [...specifiedDirectives, requiresPermissionDirective],
    scalarsMap: [{ type: Date, scalar: GraphQLDateTimeISO }],
    // Field rules run inside the services (class-validator), merged with the rules that need the database.
    validate: false,
  });
  return enforcePermissions(schema);
}

/** schema.graphql as committed: sorted, with the @requiresPermission uses that graphql's printer drops. */
export function printAppSchema(schema: GraphQLSchema): string {
  return `${printSchemaWithDirectives(lexicographicSortSchema(schema))}\n`;
}
