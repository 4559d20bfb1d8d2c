import { parseArgs } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import { PERMISSIONS } from '../auth/permissions';
import { KeyEnvironment } from '../modules/api-key/api-key.entity';
import { ApiKeyService, apiKeyView } from '../modules/api-key/api-key.service';
import { OrganizationPlan } from '../modules/organization/organization.entity';
import { OrganizationService, organizationView } from '../modules/organization/organization.service';
import { parseCsv, parseEnum, parseDateTime, parsePositiveInteger, required } from './arguments';

type Options = Record<string, string | undefined>;

export interface Command {
  readonly name: string;
  readonly usage: string;
  readonly help: string;
  parse(args: string[]): { options: Options; positionals: string[] };
  run(em: EntityManager, options: Options, positionals: string[]): Promise<unknown>;
}

function parser(spec: Record<string, { type: 'string' }>, positionalCount = 0) {
  return (args: string[]) => {
    const { values, positionals } = parseArgs({ args, options: spec, allowPositionals: positionalCount > 0, strict: true });
    if (positionals.length !== positionalCount) {
      throw new Error(`expected ${positionalCount} positional argument(s), got ${positionals.length}`);
    }
    return { options: values as Options, positionals };
  };
}

export const COMMANDS: Command[] = [
  {
    name: 'db migrate',
    usage: 'db migrate',
    help: `db migrate
  Applies pending migrations (the server also does this at start) and lists those applied so far.`,
    parse: parser({}),
    async run(em) {
      const rows = await em.getConnection().execute<{ name: string }[]>('select name from mikro_orm_migrations order by id');
      return { migrations: rows.map((row) => row.name) };
    },
  },
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
    name: 'key create',
    usage: 'key create --org ORG_ID --name NAME --permissions CSV [--env live|test] [--expires-at ISO]',
    help: `key create --org ORG_ID --name NAME --permissions CSV [--env live|test] [--expires-at ISO]
  Creates an API key and prints it once (field "key"): only its SHA-256 hash is stored.
  Permissions: ${PERMISSIONS.join(', ')}.`,
    parse: parser({
      org: { type: 'string' },
      name: { type: 'string' },
      permissions: { type: 'string' },
      env: { type: 'string' },
      'expires-at': { type: 'string' },
    }),
    async run(em, options) {
      const { entity, key } = await new ApiKeyService(em).create({
        organizationId: required(options, 'org'),
        name: required(options, 'name'),
        permissions: parseCsv(required(options, 'permissions')),
        environment: options.env === undefined ? undefined : parseEnum(options.env, 'env', KeyEnvironment),
        expiresAt: options['expires-at'] === undefined ? undefined : parseDateTime(options['expires-at'], 'expires-at'),
      });
      return { ...apiKeyView(entity), key };
    },
  },
];
