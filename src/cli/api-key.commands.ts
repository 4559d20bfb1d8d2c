import { PERMISSIONS } from '../auth/permissions';
import { KeyEnvironment } from '../modules/api-key/api-key.entity';
import { ApiKeyService, apiKeyView } from '../modules/api-key/api-key.service';
import { parseCsv, parseDateTime, parseEnum, required } from './arguments';
import { type Command, parser } from './command';

export const API_KEY_COMMANDS: Command[] = [
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
