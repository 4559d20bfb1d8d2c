import { PERMISSIONS } from '../../platform/auth/permissions';
import type * as ApiKeyEntityModule from '../../modules/api-key/api-key.entity';
import type * as RepositoryModule from '../../modules/api-key/api-key.repository';
import type * as ViewModule from '../../modules/api-key/api-key.view';
import type * as CreateModule from '../../modules/api-key/commands/create-api-key';
import type * as RevokeModule from '../../modules/api-key/commands/revoke-api-key';
import type * as RotateModule from '../../modules/api-key/commands/rotate-api-key';
import type * as OrganizationRepositoryModule from '../../modules/organization/organization.repository';
import { ROTATION_GRACE_HOURS } from '../../modules/api-key/api-key.constants';
import { parseCsv, parseDateTime, parseEnum, parseWholeNumber, required } from './arguments';
import { type Command, parser } from './command';

// Required when a command runs, not when the command list is built (see Command). The operator names
// a key of any organization: its organization is looked up first, then the command runs scoped to it.
const keys = () => require('../../modules/api-key/api-key.repository') as typeof RepositoryModule;
const view = () => (require('../../modules/api-key/api-key.view') as typeof ViewModule).apiKeyView;

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
    async run(scope, options) {
      const { createApiKey } = require('../../modules/api-key/commands/create-api-key') as typeof CreateModule;
      const { KeyEnvironment } = require('../../modules/api-key/api-key.entity') as typeof ApiKeyEntityModule;
      const { entity, key } = await createApiKey(scope, required(options, 'org'), {
        name: required(options, 'name'),
        permissions: parseCsv(required(options, 'permissions')),
        environment: options.env === undefined ? undefined : parseEnum(options.env, 'env', KeyEnvironment),
        expiresAt: options['expires-at'] === undefined ? undefined : parseDateTime(options['expires-at'], 'expires-at'),
      });
      return { ...view()(entity), key };
    },
  },
  {
    name: 'key list',
    usage: 'key list --org ORG_ID',
    help: `key list --org ORG_ID
  Lists an organization's keys, newest first: id, name, environment, prefix, permissions, createdAt,
  expiresAt, lastUsedAt (updated at most once a minute), revokedAt. Never a secret.`,
    parse: parser({ org: { type: 'string' } }),
    async run({ em }, options) {
      const { findOrganization } = require('../../modules/organization/organization.repository') as typeof OrganizationRepositoryModule;
      const organizationId = required(options, 'org');
      await findOrganization(em, organizationId);
      return { organizationId, keys: (await keys().keysOfOrganization(em, organizationId)).map(view()) };
    },
  },
  {
    name: 'key show',
    usage: 'key show KEY_ID',
    help: `key show KEY_ID
  Shows one key: its organization, name, environment, prefix, permissions, createdAt, expiresAt,
  lastUsedAt, revokedAt. Never the secret (only its hash is stored).`,
    parse: parser({}, 1),
    async run({ em }, _options, [apiKeyId]) {
      const { findKey, organizationOfKey } = keys();
      return view()(await findKey(em, await organizationOfKey(em, apiKeyId), apiKeyId));
    },
  },
  {
    name: 'key revoke',
    usage: 'key revoke KEY_ID',
    help: `key revoke KEY_ID
  Revokes a key: every running server refuses it within a second (401 INVALID_API_KEY).
  Revoking a revoked key changes nothing.`,
    parse: parser({}, 1),
    async run(scope, _options, [apiKeyId]) {
      const { em } = scope;
      const { revokeApiKey } = require('../../modules/api-key/commands/revoke-api-key') as typeof RevokeModule;
      return view()(await revokeApiKey(scope, await keys().organizationOfKey(em, apiKeyId), apiKeyId));
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
    async run(scope, options, [apiKeyId]) {
      const { em } = scope;
      const { rotateApiKey } = require('../../modules/api-key/commands/rotate-api-key') as typeof RotateModule;
      const graceHours = options['grace-hours'] === undefined ? undefined : parseWholeNumber(options['grace-hours'], 'grace-hours');
      const { previous, entity, key } = await rotateApiKey(scope, await keys().organizationOfKey(em, apiKeyId), apiKeyId, graceHours);
      return { ...view()(entity), key, previous: view()(previous) };
    },
  },
];
