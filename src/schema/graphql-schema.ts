import { MapperKind, mapSchema, printSchemaWithDirectives } from '@graphql-tools/utils';
import { lexicographicSortSchema, specifiedDirectives, type GraphQLSchema } from 'graphql';
import { GraphQLDateTimeISO } from 'graphql-scalars';
import { buildSchemaSync, type NonEmptyArray } from 'type-graphql';
import { AdminApiKeyResolver } from '../modules/dashboard/dashboard-api-key.resolver';
import { AdminMemberResolver } from '../modules/dashboard/dashboard-member.resolver';
import { AdminOrganizationResolver } from '../modules/dashboard/dashboard-organization.resolver';
import { ViewerResolver } from '../modules/api-key/viewer.resolver';
import { OrganizationSettingsResolver } from '../modules/api-key/organization-settings.resolver';
import { BookingResolver } from '../modules/booking/booking.resolver';
import { EventBookingsResolver } from '../modules/booking/event-bookings.resolver';
import { EventEntity } from '../modules/event/event.entity';
import { EventResolver } from '../modules/event/event.resolver';
import { MemberResolver } from '../modules/member/member.resolver';
import { TicketTypeResolver } from '../modules/ticket-type/ticket-type.resolver';
import { DateTimeISO } from '../platform/graphql/date-time';
import { anyKeyDirective, enforcePermissions, requiresPermissionDirective } from '../platform/graphql/requires-permission';
import { requiresSessionDirective } from '../platform/graphql/requires-session';
import { WaitlistResolver } from '../modules/waitlist/waitlist.resolver';
import { WebhookResolver } from '../modules/webhook/webhook.resolver';
import { AuditResolver } from '../modules/audit/audit.resolver';
import { EventSeriesResolver, SeriesResolver } from '../modules/series/series.resolver';
import { SeriesEntity } from '../modules/series/series.entity';
import { EventQueueResolver, EventQueueStatsResolver, QueueResolver } from '../modules/queue/queue.resolver';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
const RESOLVERS: NonEmptyArray<Function> = [
  EventResolver,
  TicketTypeResolver,
  BookingResolver,
  EventBookingsResolver,
  MemberResolver,
  AdminApiKeyResolver,
  AdminMemberResolver,
  AdminOrganizationResolver,
  ViewerResolver,
  OrganizationSettingsResolver,
  WebhookResolver,
  WaitlistResolver,
  AuditResolver,
  SeriesResolver,
  EventSeriesResolver,
  // The on-sale queue (D30).
  QueueResolver,
  EventQueueResolver,
  EventQueueStatsResolver,
];

/** Fields that are getters on their class: read as plain properties (see buildAppSchema). */
const GETTER_FIELDS: Readonly<Record<string, readonly string[]>> = { Event: gettersOf(EventEntity.prototype), Series: gettersOf(SeriesEntity.prototype) };

function gettersOf(prototype: object): string[] {
  return Object.entries(Object.getOwnPropertyDescriptors(prototype))
    .filter(([, descriptor]) => descriptor.get !== undefined)
    .map(([name]) => name);
}

/** The one schema both doors execute against, with every permission enforced. Built once at start. */
export function buildAppSchema(): GraphQLSchema {
  const schema = buildSchemaSync({
    resolvers: RESOLVERS,
    directives: [...specifiedDirectives, requiresPermissionDirective, requiresSessionDirective, anyKeyDirective],
    scalarsMap: [{ type: Date, scalar: GraphQLDateTimeISO }],
    // Field rules run inside the services (class-validator), merged with the rules that need the database.
    validate: false,
  });
  return enforcePermissions(
    mapSchema(schema, {
      [MapperKind.SCALAR_TYPE]: (scalar) => (scalar.name === DateTimeISO.name ? DateTimeISO : scalar),
      // type-graphql resolves a getter field by copying the source into a new class instance first;
      // the default resolver reads the property: the getter on an entity, the value on a read view.
      [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) =>
        GETTER_FIELDS[typeName]?.includes(fieldName) ? { ...field, resolve: undefined } : field,
    }),
  );
}

/** schema.graphql as committed: sorted, with the @requiresPermission uses that graphql's printer drops. */
export function printAppSchema(schema: GraphQLSchema): string {
  return `${printSchemaWithDirectives(lexicographicSortSchema(schema))}\n`;
}
