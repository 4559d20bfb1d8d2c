import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../platform/graphql/request-context';
import { RequiresSession } from '../../platform/graphql/requires-session';
import { ROTATION_GRACE_HOURS } from '../api-key/api-key.constants';
import { createApiKey } from '../api-key/commands/create-api-key';
import { revokeApiKey } from '../api-key/commands/revoke-api-key';
import { rotateApiKey } from '../api-key/commands/rotate-api-key';
import { keysOfOrganization } from '../api-key/api-key.repository';
import { ApiKeyView, CreateApiKeyInput, CreatedApiKey, RotatedApiKey } from './dashboard.types';
import { apiKeyViews } from './api-key-views';

/**
 * D19: only a signed-in ADMIN creates, revokes or rotates keys; any signed-in member (a MEMBER too,
 * read only) lists them; no API key can do any of it.
 */
@Resolver()
export class AdminApiKeyResolver {
  @Query(() => [ApiKeyView], { description: "The organization's API keys, newest first (never a secret); any signed-in member reads them." })
  @RequiresSession('MEMBER')
  async apiKeys(@Ctx() { em, auth }: RequestContext): Promise<ApiKeyView[]> {
    return apiKeyViews(em, auth.organization.id, await keysOfOrganization(em, auth.organization.id));
  }

  @Mutation(() => CreatedApiKey, { description: "A new key; it inherits its creator's permissions (scopes ∩ what the creator holds now)." })
  @RequiresSession('ADMIN')
  async createApiKey(@Ctx() { em, scope, auth }: RequestContext, @Arg('input', () => CreateApiKeyInput) input: CreateApiKeyInput): Promise<CreatedApiKey> {
    const { entity, key } = await createApiKey(scope, auth.organization.id, { ...input, createdByMemberId: auth.session!.memberId });
    const [apiKey] = await apiKeyViews(em, auth.organization.id, [entity]);
    return { apiKey, key };
  }

  @Mutation(() => ApiKeyView, { description: 'Revokes a key: it stops working within a second on every instance.' })
  @RequiresSession('ADMIN')
  async revokeApiKey(@Ctx() { em, scope, auth }: RequestContext, @Arg('id', () => ID) id: string): Promise<ApiKeyView> {
    const [view] = await apiKeyViews(em, auth.organization.id, [await revokeApiKey(scope, auth.organization.id, id)]);
    return view;
  }

  @Mutation(() => RotatedApiKey, { description: 'Issues a replacement; the old key keeps working for graceHours (0 to 720).' })
  @RequiresSession('ADMIN')
  async rotateApiKey(
    @Ctx() { em, scope, auth }: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('graceHours', () => Int, { defaultValue: ROTATION_GRACE_HOURS }) graceHours: number,
  ): Promise<RotatedApiKey> {
    const { previous, entity, key } = await rotateApiKey(scope, auth.organization.id, id, graceHours);
    const [apiKey, previousView] = await apiKeyViews(em, auth.organization.id, [entity, previous]);
    return { apiKey, key, previous: previousView };
  }
}
