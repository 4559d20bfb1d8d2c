import { AppError } from '../errors/app-error';
import { normalizeAllowlist } from '../modules/organization/ip-allowlist';
import { OrganizationPlan, RestrictionMode } from '../modules/organization/organization.entity';
import { MAX_RATE_LIMIT_PER_MINUTE, OrganizationService, organizationView } from '../modules/organization/organization.service';
import { isIanaTimeZone } from '../validation/rules';
import { parseAll, parseCsv, parseEnum, parsePositiveInteger, required } from './arguments';
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
  {
    name: 'org update',
    usage: 'org update ORG_ID [--timezone TZ] [--plan P] [--rate-limit N] [--allowed-ips CSV] [--restriction-mode STRICT|OFF]',
    help: `org update ORG_ID [--timezone TZ] [--plan standard|enterprise] [--rate-limit N|default]
                  [--allowed-ips CSV] [--restriction-mode STRICT|OFF]
  Changes an organization; options not given stay as they are. Running servers apply the change
  within a second.
  --rate-limit      requests a minute shared by all its keys; "default" = RATE_LIMIT_PER_MINUTE.
  --allowed-ips     IPv4/IPv6 addresses and CIDR ranges, comma-separated, replacing the list
                    (e.g. "203.0.113.0/24,2001:db8::/32,198.51.100.7"; "" clears it).
  --restriction-mode STRICT refuses requests from outside the list (403 IP_NOT_ALLOWED).
  Allowed IPs and STRICT are for ENTERPRISE organizations only; STRICT needs a non-empty list.`,
    parse: parser(
      {
        timezone: { type: 'string' },
        plan: { type: 'string' },
        'rate-limit': { type: 'string' },
        'allowed-ips': { type: 'string' },
        'restriction-mode': { type: 'string' },
      },
      1,
    ),
    async run(em, options, [organizationId]) {
      const rateLimit = options['rate-limit'];
      const input = parseAll({
        timezone: () => {
          if (options.timezone !== undefined && !isIanaTimeZone(options.timezone)) {
            throw AppError.validation([{ field: 'timezone', message: 'timezone must be an IANA time zone name such as Europe/Paris' }]);
          }
          return options.timezone;
        },
        plan: () => (options.plan === undefined ? undefined : parseEnum(options.plan, 'plan', OrganizationPlan)),
        rateLimitPerMinute: () => {
          if (rateLimit === undefined) return undefined;
          if (rateLimit.toLowerCase() === 'default') return null;
          const value = parsePositiveInteger(rateLimit, 'rate-limit');
          if (value > MAX_RATE_LIMIT_PER_MINUTE) {
            throw AppError.validation([{ field: 'rate-limit', message: `--rate-limit must be at most ${MAX_RATE_LIMIT_PER_MINUTE}` }]);
          }
          return value;
        },
        allowedIps: () => {
          if (options['allowed-ips'] === undefined) return undefined;
          const { list, errors } = normalizeAllowlist(parseCsv(options['allowed-ips']));
          if (errors.length > 0) throw AppError.validation(errors);
          return list;
        },
        restrictionMode: () =>
          options['restriction-mode'] === undefined ? undefined : parseEnum(options['restriction-mode'], 'restriction-mode', RestrictionMode),
      });
      const organization = await new OrganizationService(em).update(organizationId, input);
      return organizationView(organization);
    },
  },
];
