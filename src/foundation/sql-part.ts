/** A part of a statement: SQL with knex's `?` placeholders and their values, in order. */
export interface SqlPart {
  readonly sql: string;
  readonly bindings: unknown[];
}
