import { randomUUID } from 'node:crypto';
import { actorOf } from '../src/platform/auth/actor';
import { graphql, type GraphQLSchema } from 'graphql';
import type { AuthContext } from '../src/platform/auth/auth-context';
import type { Permission } from '../src/platform/auth/permissions';
import { buildAppSchema } from '../src/schema/graphql-schema';
import type { RequestContext } from '../src/platform/graphql/request-context';
import { createLogger } from '../src/foundation/logger';
import type { OrganizationEntity } from '../src/modules/organization/organization.entity';
import { createOrganization, eventInput } from './helpers/factories';
import { storedEvent, storedEventCount } from './helpers/event-rows';
import { useTestApp } from './helpers/use-test-app';
import { ListCursors } from '../src/platform/crypto/list-cursor';

const CURSORS = new ListCursors(['resolver-test-secret']);

// The schema executed directly with a built context: no HTTP, no key lookup (the app gives the database).
const ctx = useTestApp();
let schema: GraphQLSchema;
let organization: OrganizationEntity;
beforeAll(async () => {
  schema = buildAppSchema();
  organization = await createOrganization(ctx.app.orm, { timezone: 'Europe/Berlin' });
});

function contextFor(permissions: Permission[], owner: OrganizationEntity = organization): RequestContext {
  const auth: AuthContext = {
    apiKeyId: 'key_resolvertest',
    organization: {
      id: owner.id,
      timezone: owner.timezone,
      plan: owner.plan,
      allowedIps: owner.allowedIps,
      restrictionMode: owner.restrictionMode,
      rateLimitPerMinute: owner.rateLimitPerMinute,
      holdMinutes: owner.holdMinutes,
      waitlistOfferMinutes: owner.waitlistOfferMinutes,
    },
    permissions,
  };
  const em = ctx.app.orm.em.fork();
  return { requestId: randomUUID(), auth, actor: actorOf(auth), em, scope: { em, actor: actorOf(auth) }, logger: createLogger('silent'), cursors: CURSORS };
}

const CREATE = `mutation($input: CreateEventInput!) {
  createEvent(input: $input) { id slug status timezone organizationId ticketTypes { id name price currency quantity sold } }
}`;
const LIST = '{ events { total page limit events { slug status } } }';

test('createEvent then events: the happy path, scoped to the context organization', async () => {
  const input = eventInput({ ticketTypes: [{ name: 'General', price: 12.5, currency: 'EUR', quantity: 10 }] });
  const created = await graphql({
    schema,
    source: CREATE,
    variableValues: { input },
    contextValue: contextFor(['events:read', 'events:write']),
  });
  expect(created.errors).toBeUndefined();
  expect(created.data?.createEvent).toEqual({
    id: expect.stringMatching(/^evt_/),
    slug: input.slug,
    status: 'DRAFT',
    timezone: 'Europe/Berlin',
    organizationId: organization.id,
    ticketTypes: [{ id: expect.stringMatching(/^tt_/), name: 'General', price: 12.5, currency: 'EUR', quantity: 10, sold: 0 }],
  });
  expect(await storedEvent(ctx.app.orm, { organizationId: organization.id, slug: input.slug as string })).not.toBeNull();

  const listed = await graphql({ schema, source: LIST, contextValue: contextFor(['events:read']) });
  expect(listed.data?.events).toEqual({ total: 1, page: 1, limit: 20, events: [{ slug: input.slug, status: 'DRAFT' }] });

  const other = await createOrganization(ctx.app.orm);
  const foreign = await graphql({ schema, source: LIST, contextValue: contextFor(['events:read'], other) });
  expect(foreign.data?.events).toMatchObject({ total: 0, events: [] });
});

test('a missing permission is FORBIDDEN with what was required and what the key holds; nothing is written', async () => {
  const before = await storedEventCount(ctx.app.orm, organization.id);
  const result = await graphql({
    schema,
    source: CREATE,
    variableValues: { input: eventInput() },
    contextValue: contextFor(['events:read']),
  });
  expect(result.data).toBeNull();
  expect(result.errors).toHaveLength(1);
  const [error] = result.errors!;
  expect(error.path).toEqual(['createEvent']);
  expect(error.originalError).toMatchObject({
    code: 'FORBIDDEN',
    details: { requiredPermission: 'events:write', currentPermissions: ['events:read'] },
  });
  expect(await storedEventCount(ctx.app.orm, organization.id)).toBe(before);

  const read = await graphql({ schema, source: LIST, contextValue: contextFor(['events:write']) });
  expect(read.errors?.[0].originalError).toMatchObject({
    code: 'FORBIDDEN',
    details: { requiredPermission: 'events:read', currentPermissions: ['events:write'] },
  });
});

test('a service rule surfaces as its coded error (EVENT_NOT_FOUND with the slug)', async () => {
  const result = await graphql({
    schema,
    source: 'mutation { deleteEvent(slug: "no-such-event") { id } }',
    contextValue: contextFor(['events:write']),
  });
  expect(result.errors?.[0].originalError).toMatchObject({ code: 'EVENT_NOT_FOUND', details: { slug: 'no-such-event' } });
});
