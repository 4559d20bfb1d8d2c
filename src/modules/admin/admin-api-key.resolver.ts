import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../graphql/request-context';
import { RequiresSession } from '../../graphql/requires-session';
import { ROTATION_GRACE_HOURS } from '../api-key/api-key.service';
import { AdminApiKeyService } from './admin-api-key.service';
import { ApiKeyView, CreateApiKeyInput, CreatedApiKey, RotatedApiKey } from './admin.types';

const service = (context: RequestContext) => new AdminApiKeyService(context.em, context.auth.organization.id);

/** D19: only a signed-in ADMIN lists, creates, revokes or rotates keys; no API key can. */
@Resolver()
export class AdminApiKeyResolver {
  @Query(() => [ApiKeyView], { description: "The organization's API keys, newest first (never a secret)." })
  @RequiresSession('ADMIN')
  apiKeys(@Ctx() context: RequestContext): Promise<ApiKeyView[]> {
    return service(context).list();
  }

  @Mutation(() => CreatedApiKey, { description: "A new key; it inherits its creator's permissions (scopes ∩ what the creator holds now)." })
  @RequiresSession('ADMIN')
  createApiKey(@Ctx() context: RequestContext, @Arg('input', () => CreateApiKeyInput) input: CreateApiKeyInput): Promise<CreatedApiKey> {
    return service(context).create(input, context.auth.session!.memberId);
  }

  @Mutation(() => ApiKeyView, { description: 'Revokes a key: it stops working within a second on every instance.' })
  @RequiresSession('ADMIN')
  revokeApiKey(@Ctx() context: RequestContext, @Arg('id', () => ID) id: string): Promise<ApiKeyView> {
    return service(context).revoke(id);
  }

  @Mutation(() => RotatedApiKey, { description: 'Issues a replacement; the old key keeps working for graceHours (0 to 720).' })
  @RequiresSession('ADMIN')
  rotateApiKey(
    @Ctx() context: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('graceHours', () => Int, { defaultValue: ROTATION_GRACE_HOURS }) graceHours: number,
  ): Promise<RotatedApiKey> {
    return service(context).rotate(id, graceHours);
  }
}
