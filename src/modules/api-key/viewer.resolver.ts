import { Ctx, Query, Resolver } from 'type-graphql';
import { AppError } from '../../errors/app-error';
import type { RequestContext } from '../../graphql/request-context';
import { AnyKey } from '../../graphql/requires-permission';
import { ApiKeyEntity } from './api-key.entity';
import { Viewer } from './viewer.types';

@Resolver(() => Viewer)
export class ViewerResolver {
  @Query(() => Viewer, { description: 'Who is calling: the key, its organization, permissions and rate-limit budget. Any valid key.' })
  @AnyKey()
  async viewer(@Ctx() context: RequestContext): Promise<Viewer> {
    const { auth } = context;
    const key = await context.em.findOne(ApiKeyEntity, { id: auth.apiKeyId }, { populate: ['organization'] });
    // Revoked or deleted between authentication and this read: the same answer as a revoked key.
    if (!key) throw new AppError('INVALID_API_KEY', 'The API key is invalid or has been revoked');
    const organization = key.organization.getEntity();
    return {
      keyId: key.id,
      name: key.name,
      environment: key.environment,
      permissions: [...auth.permissions],
      organization: { id: organization.id, name: organization.name, timezone: organization.timezone, plan: organization.plan },
      rateLimit: context.rateLimit ?? null,
    };
  }
}
