import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { buildAppSchema } from '../../../schema/graphql-schema';
import { compileRoutes } from '../rest-executor';
import { packageVersion } from './api-version';
import { buildOpenApiDocument } from './openapi-document';

// Writes the OpenAPI document the server serves at /v1/openapi.json: to the file given, else stdout.
const schema = buildAppSchema();
const text = `${JSON.stringify(buildOpenApiDocument(schema, compileRoutes(schema), packageVersion()), null, 2)}\n`;
const target = process.argv[2];
if (target) writeFileSync(target, text);
else process.stdout.write(text);
