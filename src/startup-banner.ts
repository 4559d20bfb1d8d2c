import path from 'node:path';
import { PERMISSIONS } from './platform/auth/permissions';
import type { Config } from './foundation/config';
import type { DevelopmentTenant } from './development-tenant';

function shellPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

/**
 * What a newcomer needs after `npm start` on the embedded database: which database, and either the
 * new test key with ready-to-paste commands, or how to get a key for the existing data.
 */
export function startupBanner(config: Config, url: string, tenant: DevelopmentTenant): string {
  const cacert = config.tlsCertFile ? '' : `--cacert ${shellPath(path.join(config.dataDir, 'tls', 'localhost.crt'))} `;
  const lines = [
    '',
    `Event service on ${url} with the embedded PostgreSQL (PGlite) in ${shellPath(path.join(config.dataDir, 'pgdata'))}`,
    '(set DATABASE_URL to use a PostgreSQL server instead)',
    '',
  ];
  if (tenant.created) {
    const bearer = `-H "Authorization: Bearer ${tenant.key}"`;
    const query = JSON.stringify({ query: '{ events { total events { slug title status startDate } } }' });
    lines.push(
      `Empty database: created the organization "Development" (${tenant.organizationId}) and a test key with every permission.`,
      'The key is shown only this once:',
      '',
      `  ${tenant.key}`,
      '',
      'REST:',
      `  curl ${cacert}${bearer} ${url}/v1/events`,
      'GraphQL:',
      `  curl ${cacert}${bearer} -H "Content-Type: application/json" -d '${query}' ${url}/graphql`,
    );
  } else {
    lines.push(
      `Existing data (${tenant.organizations} organization(s)); no new key is created. Make one with the admin CLI:`,
      `  npm run --silent admin -- key create --org ${tenant.organizationId ?? 'ORG_ID'} --name dev --permissions ${PERMISSIONS.join(',')} --env test`,
    );
  }
  lines.push(
    '',
    `Dashboard: ${url}/dashboard/ (sign in after adding yourself as an admin and opening the printed link):`,
    `  npm run --silent admin -- member add --org ${tenant.organizationId ?? 'ORG_ID'} --email you@example.com --name "Your Name" --role admin`,
    '  npm run --silent admin -- member invite MEMBER_ID',
    '',
  );
  return lines.join('\n');
}
