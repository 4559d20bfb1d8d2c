import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildAppSchema } from '../src/schema/graphql-schema';
import { buildOpenApiDocument } from '../src/doors/rest/openapi/openapi-document';
import { compileRoutes } from '../src/doors/rest/rest-executor';

const run = promisify(execFile);
const REDOCLY = path.resolve(__dirname, '../node_modules/.bin/redocly');

test('@redocly/cli lint reports no problem in the served document', async () => {
  const schema = buildAppSchema();
  const directory = mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
  const file = path.join(directory, 'openapi.json');
  writeFileSync(file, JSON.stringify(buildOpenApiDocument(schema, compileRoutes(schema), '0.1.0'), null, 2));
  try {
    // No network here or in CI: no telemetry, no update check.
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    // Exits non-zero on any error; the JSON report counts warnings too.
    const { stdout } = await run(REDOCLY, ['lint', '--format', 'json', file], { env, cwd: directory }).catch((error) => {
      throw new Error(`redocly lint failed:\n${error.stdout}\n${error.stderr}`);
    });
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}, 60_000);
