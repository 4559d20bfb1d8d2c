import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { runAdminInProcess } from './helpers/admin-cli';
import { databaseUrl, withAdminClient } from './helpers/database';
import { eventInput } from './helpers/factories';
import { sameSecretAs } from './helpers/second-instance';
import { startTestApp, type TestApp } from './helpers/test-app';

// D14: the admin CLI as an operator runs it, against the running test service's database. Output is one
// JSON object on stdout, exit 0; errors go to stderr with a non-zero exit and nothing on stdout. The
// cases call the CLI's entry in this process; the first runs the compiled `node dist/doors/cli/admin.js`
// (which `npm run admin` runs), as do test/cli-help-arguments.test.ts and test/cli-lookups.test.ts.

const ADMIN = path.resolve(__dirname, '../dist/doors/cli/admin.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

/**
 * The CLI's entry in this process (runAdminInProcess: the same arguments, output and exit code as the
 * compiled CLI); `processAdmin` runs `node dist/doors/cli/admin.js` itself, which the first case uses.
 */
function admin(args: string[], env: Record<string, string> = { DATABASE_URL: app.databaseUrl }): Promise<Run> {
  return runAdminInProcess(args, { PATH: process.env.PATH ?? '', ...env });
}

function processAdmin(args: string[], env: Record<string, string> = { DATABASE_URL: app.databaseUrl }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [ADMIN, ...args], { env: { PATH: process.env.PATH ?? '', ...sameSecretAs(app), ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** Exit 0 and exactly one JSON object on stdout. */
function jsonOf(run: Run): Record<string, any> {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  const value = JSON.parse(run.stdout);
  expect(value).toEqual(expect.any(Object));
  expect(Array.isArray(value)).toBe(false);
  return value;
}

function expectFailure(run: Run, message: RegExp): void {
  expect(run.code).not.toBe(0);
  expect(run.stdout).toBe('');
  expect(run.stderr).toMatch(message);
}

async function count(table: 'organizations' | 'api_keys'): Promise<number> {
  const [row] = await app.orm.em.fork().getConnection().execute<Array<{ count: number }>>(`select count(*)::int as count from ${table}`);
  return row.count;
}

describe('org create', () => {
  test('with every option (as a Node process): one JSON object, stored as printed', async () => {
    const organization = jsonOf(
      await processAdmin(['org', 'create', '--name', 'Acme Events', '--timezone', 'Europe/Paris', '--plan', 'enterprise', '--rate-limit', '50']),
    );
    expect(organization).toMatchObject({
      id: expect.stringMatching(/^org_[A-Za-z0-9]+$/),
      name: 'Acme Events',
      timezone: 'Europe/Paris',
      plan: 'ENTERPRISE',
      rateLimitPerMinute: 50,
    });
    const [row] = await app.orm.em
      .fork()
      .getConnection()
      .execute('select name, timezone, plan, rate_limit_per_minute from organizations where id = ?', [organization.id]);
    expect(row).toEqual({ name: 'Acme Events', timezone: 'Europe/Paris', plan: 'ENTERPRISE', rate_limit_per_minute: 50 });
  });

  test('with defaults', async () => {
    const organization = jsonOf(await admin(['org', 'create', '--name', 'Plain']));
    expect(organization).toMatchObject({ name: 'Plain', timezone: 'UTC', plan: 'STANDARD', rateLimitPerMinute: null });
  });

  const FAILURES: Array<[string, string[], RegExp]> = [
    ['missing --name', ['org', 'create'], /name/],
    ['blank --name', ['org', 'create', '--name', '  '], /name/],
    ['bad timezone', ['org', 'create', '--name', 'X', '--timezone', 'Mars/Olympus'], /timezone/],
    ['bad plan', ['org', 'create', '--name', 'X', '--plan', 'platinum'], /plan/],
    ['bad rate limit', ['org', 'create', '--name', 'X', '--rate-limit', '0'], /rate-limit/],
    ['unknown option', ['org', 'create', '--name', 'X', '--colour', 'red'], /colour/],
    ['unknown command', ['org', 'explode'], /unknown command/],
  ];
  // Run together; checked one by one below.
  const runs = new Map<string, Run>();
  let before = 0;
  let after = 0;
  beforeAll(async () => {
    before = await count('organizations');
    await Promise.all(FAILURES.map(async ([label, args]) => runs.set(label, await admin(args))));
    after = await count('organizations');
  });

  test.each(FAILURES)('%s: stderr, exit != 0', (label, _args, message) => {
    expectFailure(runs.get(label)!, message);
  });

  test('none of them stored an organization', () => {
    expect(after).toBe(before);
  });
});

describe('key create', () => {
  let organizationId: string;
  beforeAll(async () => {
    organizationId = jsonOf(await admin(['org', 'create', '--name', 'Key holders'])).id;
  });

  test('prints the key once; it works against the running service at once', async () => {
    const created = jsonOf(
      await admin(['key', 'create', '--org', organizationId, '--name', 'CI', '--permissions', 'events:read,events:write', '--env', 'test']),
    );
    expect(created).toMatchObject({
      id: expect.stringMatching(/^key_[A-Za-z0-9]+$/),
      key: expect.stringMatching(/^nk_test_[A-Za-z0-9]{32}$/),
      organizationId,
      name: 'CI',
      environment: 'test',
      permissions: ['events:read', 'events:write'],
      expiresAt: null,
      revokedAt: null,
    });
    expect(created.key.startsWith(created.prefix)).toBe(true);
    expect(JSON.stringify(created)).not.toMatch(/[0-9a-f]{64}/);

    const [row] = await app.orm.em.fork().getConnection().execute('select key_hash from api_keys where id = ?', [created.id]);
    expect(row.key_hash).toBe(createHash('sha256').update(created.key).digest('hex'));

    const input = eventInput();
    expect((await app.client.rest('POST', '/v1/events', created.key, input)).status).toBe(201);
    const listed = await app.client.rest('GET', '/v1/events', created.key);
    expect(listed.status).toBe(200);
    expect(listed.body.events.map((event: { slug: string }) => event.slug)).toEqual([input.slug]);
    const graphql = await app.client.graphql(created.key, '{ events { total } }');
    expect(graphql.body).toEqual({ data: { events: { total: 1 } } });
  });

  test('a live key (the default) with an expiry and a narrower permission set', async () => {
    const expiresAt = new Date(Date.now() + 90 * 24 * 3600 * 1000);
    expiresAt.setUTCMilliseconds(0);
    const created = jsonOf(
      await admin(['key', 'create', '--org', organizationId, '--name', 'Reader', '--permissions', 'events:read', '--expires-at', expiresAt.toISOString()]),
    );
    expect(created.key).toMatch(/^nk_live_[A-Za-z0-9]{32}$/);
    expect(created.expiresAt).toBe(expiresAt.toISOString());
    expect((await app.client.rest('GET', '/v1/events', created.key)).status).toBe(200);
    const denied = await app.client.rest('POST', '/v1/events', created.key, eventInput());
    expect(denied.status).toBe(403);
    expect(denied.body.error.details).toEqual({ requiredPermission: 'events:write', currentPermissions: ['events:read'] });
  });

  describe('errors', () => {
    const FAILURES: Array<[string, string[], RegExp]> = [
      ['unknown permission', ['--name', 'K', '--permissions', 'events:read,events:delete'], /events:delete/],
      ['no permissions', ['--name', 'K', '--permissions', ''], /permissions/],
      ['missing --name', ['--permissions', 'events:read'], /name/],
      ['missing --permissions', ['--name', 'K'], /permissions/],
      ['bad --env', ['--name', 'K', '--permissions', 'events:read', '--env', 'prod'], /env/],
      ['--expires-at in the past', ['--name', 'K', '--permissions', 'events:read', '--expires-at', '2020-01-01T00:00:00Z'], /expires/i],
      ['--expires-at not a date', ['--name', 'K', '--permissions', 'events:read', '--expires-at', 'soon'], /expires-at/],
      ['unknown option', ['--name', 'K', '--permissions', 'events:read', '--admin'], /admin/],
    ];
    const runs = new Map<string, Run>();
    let before = 0;
    let after = 0;
    let unknownOrganization: Run;
    beforeAll(async () => {
      before = await count('api_keys');
      await Promise.all([
        ...FAILURES.map(async ([label, args]) => runs.set(label, await admin(['key', 'create', '--org', organizationId, ...args]))),
        admin(['key', 'create', '--org', 'org_doesnotexist', '--name', 'K', '--permissions', 'events:read']).then((run) => {
          unknownOrganization = run;
        }),
      ]);
      after = await count('api_keys');
    });

    test.each(FAILURES)('%s: stderr, exit != 0', (label, _args, message) => {
      expectFailure(runs.get(label)!, message);
    });

    test('an unknown organization: stderr, exit != 0', () => {
      expectFailure(unknownOrganization, /org_doesnotexist/);
    });

    test('none of them stored a key', () => {
      expect(after).toBe(before);
    });
  });
});

test('a DATABASE_URL naming a database that does not exist is an error, and no database is created', async () => {
  const name = `event_service_missing_${Date.now()}`;
  expectFailure(await admin(['org', 'create', '--name', 'X'], { DATABASE_URL: databaseUrl(name) }), new RegExp(name));
  const rows = await withAdminClient((client) => client.query('select 1 from pg_database where datname = $1', [name]));
  expect(rows.rowCount).toBe(0);
});

describe('series create (D28)', () => {
  let organizationId: string;
  beforeAll(async () => {
    organizationId = jsonOf(await admin(['org', 'create', '--name', 'Studio'])).id;
  });

  test('makes the series from a rule, with its occurrences (events in DRAFT), as createSeries does', async () => {
    const series = jsonOf(
      await admin([
        'series', 'create', '--org', organizationId, '--slug', 'evening-yoga', '--title', 'Evening yoga', '--timezone', 'Europe/Berlin',
        '--first-start', '2027-03-02T18:00', '--duration', '60', '--rule', 'FREQ=WEEKLY;BYDAY=TU;UNTIL=20270401T000000Z', '--exdates', '2027-03-16T18:00',
        '--rdates', '2027-03-05T18:00', '--capacity', '12',
      ]),
    );
    expect(series).toMatchObject({
      id: expect.stringMatching(/^ser_/),
      slug: 'evening-yoga',
      organizationId,
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270401T000000Z', 'RDATE:20270305T180000', 'EXDATE:20270316T180000'],
      occurrenceCount: 5,
      capacity: 12,
      version: 1,
    });
    const rows = await app.orm.em.fork().getConnection().execute('select slug, status from events where organization_id = ? order by start_date', [organizationId]);
    expect(rows.map((row: any) => [row.slug, row.status])).toEqual(
      ['2027-03-02', '2027-03-05', '2027-03-09', '2027-03-23', '2027-03-30'].map((date) => [`evening-yoga-${date}`, 'DRAFT']),
    );
    // The CLI is an actor of the audit log (D26).
    const [entry] = await app.orm.em.fork().getConnection().execute("select actor_kind from audit_log where organization_id = ? and action = 'series.created'", [organizationId]);
    expect(entry).toEqual({ actor_kind: 'CLI' });
  });

  test('the rule\'s limits and the other fields are checked (every failing one), and an unknown organization is NOT_FOUND', async () => {
    const base = ['series', 'create', '--org', organizationId, '--slug', 'bad-series', '--title', 'X', '--timezone', 'Europe/Berlin', '--first-start', '2027-03-02T18:00'];
    expectFailure(await admin([...base, '--duration', '60', '--rule', 'FREQ=DAILY']), /recurrence must end/);
    expectFailure(await admin([...base, '--duration', '60', '--rule', 'FREQ=DAILY;COUNT=1001']), /more than 1,000 occurrences/);
    expectFailure(await admin([...base, '--duration', 'x', '--rule', 'FREQ=DAILY;COUNT=2', '--capacity', '0']), /duration[\s\S]*capacity/);
    expectFailure(await admin([...base.slice(0, 3), 'org_doesnotexist', ...base.slice(4), '--duration', '60', '--rule', 'FREQ=DAILY;COUNT=2']), /org_doesnotexist/);
    const [row] = await app.orm.em.fork().getConnection().execute("select count(*)::int as count from series where slug = 'bad-series'");
    expect(row.count).toBe(0);
  });
});
