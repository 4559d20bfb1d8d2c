import { GraphQLScalarType } from 'graphql';
import { GraphQLDateTimeISO } from 'graphql-scalars';

/**
 * graphql-scalars' DateTimeISO, with an output path for values already serialized: the hot reads
 * return dates as ISO 8601 strings made by PostgreSQL (`YYYY-MM-DDTHH:MM:SS.mmmZ`, as
 * `Date#toISOString` writes them), which pass through untouched instead of being parsed and printed
 * again per field. Dates (entities after a write) serialize exactly as before; inputs parse as before.
 */
export const DateTimeISO = new GraphQLScalarType({
  ...GraphQLDateTimeISO.toConfig(),
  serialize(value: unknown): string {
    return typeof value === 'string' && ISO_UTC.test(value) ? value : (GraphQLDateTimeISO.serialize(value));
  },
});

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
