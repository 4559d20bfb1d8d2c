import { AppError } from '../errors/app-error';
import type * as OrganizationModule from '../modules/organization/organization.service';
import type * as AllowlistModule from '../modules/organization/ip-allowlist';
import type * as EntityModule from '../modules/organization/organization.entity';
import type * as RulesModule from '../validation/rules';
import { invalid, parseAll, parseCsv, parseEnum, parsePositiveInteger, required } from './arguments';
import { type Command, parser } from './command';

// Required when a command runs, not when the command list is built (see Command).
const organizations = () => require('../modules/organization/organization.service') as typeof OrganizationModule;
const entities = () => require('../modules/organization/organization.entity') as typeof EntityModule;

export const ORGANIZATION_COMMANDS: Command[] = [
  {
    name: 'org create',
    usage: 'org create --name NAME [--timezone TZ] [--plan standard|enterprise] [--rate-limit N]',
    help: `org create --name NAME [--timezone TZ] [--plan standard|enterprise] [--rate-limit N]
  Creates an organization. --timezone is the default of its events (IANA name, default UTC);
  --rate-limit overrides RATE_LIMIT_PER_MINUTE for it.`,
    parse: parser({ name: { type: 'string' }, timezone: { type: 'string' }, plan: { type: 'string' }, 'rate-limit': { type: 'string' } }),
    async run(em, options) {
      const { OrganizationService, organizationView } = organizations();
      const organization = await new OrganizationService(em).create({
        name: required(options, 'name'),
        timezone: options.timezone,
        plan: options.plan === undefined ? undefined : parseEnum(options.plan, 'plan', entities().OrganizationPlan),
        rateLimitPerMinute: options['rate-limit'] === undefined ? undefined : parsePositiveInteger(options['rate-limit'], 'rate-limit'),
      });
      return organizationView(organization);
    },
  },
  {
    name: 'org list',
    usage: 'org list',
    help: `org list
  Lists every organization, newest first: id, name, timezone, plan, allowed IPs, restriction mode,
  rate limit, createdAt, updatedAt.`,
    parse: parser({}),
    async run(em) {
      const { OrganizationService, organizationView } = organizations();
      const list = await new OrganizationService(em).list();
      return { total: list.length, organizations: list.map(organizationView) };
    },
  },
  {
    name: 'org show',
    usage: 'org show ORG_ID',
    help: `org show ORG_ID
  Shows one organization with how many members and usable keys (neither revoked nor expired) it has.`,
    parse: parser({}, 1),
    async run(em, _options, [organizationId]) {
      const { OrganizationService, organizationView } = organizations();
      const service = new OrganizationService(em);
      const organization = await service.get(organizationId);
      return { ...organizationView(organization), ...(await service.counts(organizationId)) };
    },
  },
  {
    name: 'org update',
    usage:
      'org update ORG_ID [--timezone TZ] [--plan standard|enterprise] [--rate-limit N|default] [--allowed-ips CSV] [--restriction-mode STRICT|OFF]',
    help: `org update ORG_ID [--timezone TZ] [--plan standard|enterprise] [--rate-limit N|default] [--allowed-ips CSV] [--restriction-mode STRICT|OFF]
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
      const { OrganizationService, organizationView, MAX_RATE_LIMIT_PER_MINUTE } = organizations();
      const { OrganizationPlan, RestrictionMode } = entities();
      const { isIanaTimeZone } = require('../validation/rules') as typeof RulesModule;
      const { normalizeAllowlist } = require('../modules/organization/ip-allowlist') as typeof AllowlistModule;
      const rateLimit = options['rate-limit'];
      const input = parseAll({
        timezone: () => {
          if (options.timezone !== undefined && !isIanaTimeZone(options.timezone)) {
            throw invalid('timezone', 'timezone must be an IANA time zone name such as Europe/Paris');
          }
          return options.timezone;
        },
        plan: () => (options.plan === undefined ? undefined : parseEnum(options.plan, 'plan', OrganizationPlan)),
        rateLimitPerMinute: () => {
          if (rateLimit === undefined) return undefined;
          if (rateLimit.toLowerCase() === 'default') return null;
          const value = parsePositiveInteger(rateLimit, 'rate-limit');
          if (value > MAX_RATE_LIMIT_PER_MINUTE) throw invalid('rate-limit', `--rate-limit must be at most ${MAX_RATE_LIMIT_PER_MINUTE}`);
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
