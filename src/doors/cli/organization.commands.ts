import { AppError } from '../../foundation/errors/app-error';
import type * as KeyRepositoryModule from '../../modules/api-key/api-key.repository';
import type * as MemberRepositoryModule from '../../modules/member/member.repository';
import type * as CreateModule from '../../modules/organization/commands/create-organization';
import type * as UpdateModule from '../../modules/organization/commands/update-organization';
import type * as AllowlistModule from '../../modules/organization/ip-allowlist';
import type * as EntityModule from '../../modules/organization/organization.entity';
import type * as PolicyModule from '../../modules/organization/organization.policy';
import type * as RepositoryModule from '../../modules/organization/organization.repository';
import type * as ViewModule from '../../modules/organization/organization.view';
import { invalid, parseAll, parseCsv, parseEnum, parsePositiveInteger, parseWholeNumber, required } from './arguments';
import { type Command, parser } from './command';

// Required when a command runs, not when the command list is built (see Command).
const organizations = () => require('../../modules/organization/organization.repository') as typeof RepositoryModule;
const view = () => (require('../../modules/organization/organization.view') as typeof ViewModule).organizationView;
const entities = () => require('../../modules/organization/organization.entity') as typeof EntityModule;

/** --hold-minutes / --waitlist-offer-minutes: a whole number of minutes, 1 to 1440 (D20, D21). */
function windowMinutes(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const minutes = parsePositiveInteger(value, name);
  const { MAX_HOLD_MINUTES } = entities();
  if (minutes > MAX_HOLD_MINUTES) throw invalid(name, `--${name} must be at most ${MAX_HOLD_MINUTES} (a day)`);
  return minutes;
}

/** --transfer-lock-minutes: a whole number of minutes, 0 to 10,080 (D29). */
function transferLockMinutes(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const minutes = parseWholeNumber(value, 'transfer-lock-minutes');
  const { MAX_TRANSFER_LOCK_MINUTES } = entities();
  if (minutes > MAX_TRANSFER_LOCK_MINUTES) throw invalid('transfer-lock-minutes', `--transfer-lock-minutes must be at most ${MAX_TRANSFER_LOCK_MINUTES} (a week)`);
  return minutes;
}

export const ORGANIZATION_COMMANDS: Command[] = [
  {
    name: 'org create',
    usage: 'org create --name NAME [--timezone TZ] [--plan standard|enterprise] [--rate-limit N]',
    help: `org create --name NAME [--timezone TZ] [--plan standard|enterprise] [--rate-limit N]
  Creates an organization. --timezone is the default of its events (IANA name, default UTC);
  --rate-limit overrides RATE_LIMIT_PER_MINUTE for it.`,
    parse: parser({ name: { type: 'string' }, timezone: { type: 'string' }, plan: { type: 'string' }, 'rate-limit': { type: 'string' } }),
    async run(scope, options) {
      const { createOrganization } = require('../../modules/organization/commands/create-organization') as typeof CreateModule;
      const organization = await createOrganization(scope, {
        name: required(options, 'name'),
        timezone: options.timezone,
        plan: options.plan === undefined ? undefined : parseEnum(options.plan, 'plan', entities().OrganizationPlan),
        rateLimitPerMinute: options['rate-limit'] === undefined ? undefined : parsePositiveInteger(options['rate-limit'], 'rate-limit'),
      });
      return view()(organization);
    },
  },
  {
    name: 'org list',
    usage: 'org list',
    help: `org list
  Lists every organization, newest first: id, name, timezone, plan, allowed IPs, restriction mode,
  rate limit, hold, waiting-list offer and transfer lock minutes, createdAt, updatedAt.`,
    parse: parser({}),
    async run({ em }) {
      const list = await organizations().listOrganizations(em);
      return { total: list.length, organizations: list.map(view()) };
    },
  },
  {
    name: 'org show',
    usage: 'org show ORG_ID',
    help: `org show ORG_ID
  Shows one organization with how many members and usable keys (neither revoked nor expired) it has.`,
    parse: parser({}, 1),
    async run({ em }, _options, [organizationId]) {
      const { countMembers } = require('../../modules/member/member.repository') as typeof MemberRepositoryModule;
      const { countActiveKeys } = require('../../modules/api-key/api-key.repository') as typeof KeyRepositoryModule;
      const organization = await organizations().findOrganization(em, organizationId);
      const members = await countMembers(em, organizationId);
      const activeKeys = await countActiveKeys(em, organizationId, new Date());
      return { ...view()(organization), members, activeKeys };
    },
  },
  {
    name: 'org update',
    usage:
      'org update ORG_ID [--timezone TZ] [--plan standard|enterprise] [--rate-limit N|default] [--allowed-ips CSV] [--restriction-mode STRICT|OFF] [--hold-minutes N] [--waitlist-offer-minutes N] [--transfer-lock-minutes N]',
    help: `org update ORG_ID [--timezone TZ] [--plan standard|enterprise] [--rate-limit N|default] [--allowed-ips CSV] [--restriction-mode STRICT|OFF] [--hold-minutes N] [--waitlist-offer-minutes N] [--transfer-lock-minutes N]
  Changes an organization; options not given stay as they are. Running servers apply the change
  within a second.
  --rate-limit      requests a minute shared by all its keys; "default" = RATE_LIMIT_PER_MINUTE.
  --allowed-ips     IPv4/IPv6 addresses and CIDR ranges, comma-separated, replacing the list
                    (e.g. "203.0.113.0/24,2001:db8::/32,198.51.100.7"; "" clears it).
  --restriction-mode STRICT refuses requests from outside the list (403 IP_NOT_ALLOWED).
  --hold-minutes    how long a hold lasts when a booking does not say (1 to 1440, default 15).
  --waitlist-offer-minutes  how long a waiting-list offer is held (1 to 1440, default 60).
  --transfer-lock-minutes  how long before an event's start its bookings stop changing hands
                    (transferBooking; 0 to 10080, default 0: until the start).
  Allowed IPs and STRICT are for ENTERPRISE organizations only; STRICT needs a non-empty list.`,
    parse: parser(
      {
        timezone: { type: 'string' },
        plan: { type: 'string' },
        'rate-limit': { type: 'string' },
        'allowed-ips': { type: 'string' },
        'restriction-mode': { type: 'string' },
        'hold-minutes': { type: 'string' },
        'waitlist-offer-minutes': { type: 'string' },
        'transfer-lock-minutes': { type: 'string' },
      },
      1,
    ),
    async run(scope, options, [organizationId]) {
      const { updateOrganization } = require('../../modules/organization/commands/update-organization') as typeof UpdateModule;
      const { MAX_RATE_LIMIT_PER_MINUTE, timezoneErrors } = require('../../modules/organization/organization.policy') as typeof PolicyModule;
      const { OrganizationPlan, RestrictionMode } = entities();
      const { normalizeAllowlist } = require('../../modules/organization/ip-allowlist') as typeof AllowlistModule;
      const rateLimit = options['rate-limit'];
      const input = parseAll({
        timezone: () => {
          const errors = timezoneErrors(options.timezone);
          if (errors.length > 0) throw AppError.validation(errors);
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
        holdMinutes: () => windowMinutes(options['hold-minutes'], 'hold-minutes'),
        waitlistOfferMinutes: () => windowMinutes(options['waitlist-offer-minutes'], 'waitlist-offer-minutes'),
        transferLockMinutes: () => transferLockMinutes(options['transfer-lock-minutes']),
      });
      return view()(await updateOrganization(scope, organizationId, input));
    },
  },
];
