import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { buildSchema, parse, validate } from 'graphql';

// The dashboard's operations are typed from schema.graphql; the generated file must match both.
const ROOT = path.resolve(__dirname, '..');

test('every dashboard operation is valid against the committed schema.graphql', () => {
  const schema = buildSchema(readFileSync(path.join(ROOT, 'schema.graphql'), 'utf8'));
  const document = parse(readFileSync(path.join(ROOT, 'src/doors/dashboard/frontend/operations.graphql'), 'utf8'));
  expect(validate(schema, document).map((error) => error.message)).toEqual([]);
});

test('src/doors/dashboard/frontend/generated/operations.ts is up to date (npm run dashboard:codegen)', () => {
  // The generator runs in its own process (compiled by npm run build): its plugins are ES modules.
  const script = `require('${path.join(ROOT, 'dist/doors/dashboard/codegen.js')}').generateOperationTypes().then((text) => process.stdout.write(text))`;
  const generated = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  expect(generated).toBe(readFileSync(path.join(ROOT, 'src/doors/dashboard/frontend/generated/operations.ts'), 'utf8'));
});
