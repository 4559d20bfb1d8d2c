import { OrganizationPlan } from '../modules/organization/organization.entity';
import { OrganizationService, organizationView } from '../modules/organization/organization.service';
import { parseEnum, parsePositiveInteger, required } from './arguments';
import { type Command, parser } from './command';

export const ORGANIZATION_COMMANDS: Command[] = [
  {
    name: 'org create',
    usage: 'org create --name NAME [--timezone TZ] [--plan standard|enterprise] [--rate-limit N]',
    help: `org create --name NAME [--timezone TZ] [--plan standard|enterprise] [--rate-limit N]
  Creates an organization. --timezone is the default of its events (IANA name, default UTC);
  --rate-limit overrides RATE_LIMIT_PER_MINUTE for it.`,
    parse: parser({ name: { type: 'string' }, timezone: { type: 'string' }, plan: { type: 'string' }, 'rate-limit': { type: 'string' } }),
    async run(em, options) {
      const organization = await new OrganizationService(em).create({
        name: required(options, 'name'),
        timezone: options.timezone,
        plan: options.plan === undefined ? undefined : parseEnum(options.plan, 'plan', OrganizationPlan),
        rateLimitPerMinute: options['rate-limit'] === undefined ? undefined : parsePositiveInteger(options['rate-limit'], 'rate-limit'),
      });
      return organizationView(organization);
    },
  },
];
