import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildAppSchema, printAppSchema } from './graphql-schema';

// Regenerates the committed schema.graphql (npm run schema:print); a test fails when it drifts.
const target = path.resolve(__dirname, '../../schema.graphql');
writeFileSync(target, printAppSchema(buildAppSchema()));
process.stdout.write(`wrote ${target}\n`);
