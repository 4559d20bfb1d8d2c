import { PERMISSIONS } from '../auth/permissions';
import type * as ApiKeyEntityModule from '../modules/api-key/api-key.entity';
import type * as ApiKeyModule from '../modules/api-key/api-key.service';
import { ROTATION_GRACE_HOURS } from '../modules/api-key/api-key.constants';
import { parseCsv, parseDateTime, parseEnum, parseWholeNumber, required } from './arguments';
import { type Command, parser } from './command';

// Required when a command runs, not when the command list is built (see Command).
const apiKeys = () => require('../modules/api-key/api-key.service') as typeof ApiKeyModule;

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
      const { ApiKeyService, apiKeyView } = apiKeys();
      const { KeyEnvironment } = require('../modules/api-key/api-key.entity') as typeof ApiKeyEntityModule;
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
  {
    name: 'key list',
    usage: 'key list --org ORG_ID',
    help: `key list --org ORG_ID
  Lists an organization's keys, newest first: id, name, environment, prefix, permissions, createdAt,
  expiresAt, lastUsedAt (updated at most once a minute), revokedAt. Never a secret.`,
    parse: parser({ org: { type: 'string' } }),
    async run(em, options) {
      const { ApiKeyService, apiKeyView } = apiKeys();
      const organizationId = required(options, 'org');
      const keys = await new ApiKeyService(em).list(organizationId);
      return { organizationId, keys: keys.map(apiKeyView) };
    },
  },
  {
    name: 'key show',
    usage: 'key show KEY_ID',
    help: `key show KEY_ID
  Shows one key: its organization, name, environment, prefix, permissions, createdAt, expiresAt,
  lastUsedAt, revokedAt. Never the secret (only its hash is stored).`,
    parse: parser({}, 1),
    async run(em, _options, [apiKeyId]) {
      const { ApiKeyService, apiKeyView } = apiKeys();
      return apiKeyView(await new ApiKeyService(em).get(apiKeyId));
    },
  },
  {
    name: 'key revoke',
    usage: 'key revoke KEY_ID',
    help: `key revoke KEY_ID
  Revokes a key: every running server refuses it within a second (401 INVALID_API_KEY).
  Revoking a revoked key changes nothing.`,
    parse: parser({}, 1),
    async run(em, _options, [apiKeyId]) {
      const { ApiKeyService, apiKeyView } = apiKeys();
      return apiKeyView(await new ApiKeyService(em).revoke(apiKeyId));
    },
  },
  {
    name: 'key rotate',
    usage: `key rotate KEY_ID [--grace-hours N]`,
    help: `key rotate KEY_ID [--grace-hours N]
  Creates a replacement key with the same name, permissions and environment (and the same lifetime
  from now, if the old key had one) and prints it once (field "key"). The old key keeps working for
  the grace period (default ${ROTATION_GRACE_HOURS} hours; 0 ends it now), then expires: its expiresAt is
  shown under "previous".`,
    parse: parser({ 'grace-hours': { type: 'string' } }, 1),
    async run(em, options, [apiKeyId]) {
      const { ApiKeyService, apiKeyView } = apiKeys();
      const graceHours = options['grace-hours'] === undefined ? undefined : parseWholeNumber(options['grace-hours'], 'grace-hours');
      const { previous, entity, key } = await new ApiKeyService(em).rotate(apiKeyId, graceHours);
      return { ...apiKeyView(entity), key, previous: apiKeyView(previous) };
    },
  },
];
