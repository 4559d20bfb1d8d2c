import path from 'node:path';

/*
 * Hand-written SQL, declared once per statement with named parameters (`:organizationId`), compiled
 * once at load to the positional text PostgreSQL runs (`$1`, or `?` for the ORM's `em.execute`) and
 * the order of its names, so a call site passes an object by name. Every declared statement is also
 * written to `sql/<file>.sql` by `npm run sql:snapshots` (test/sql-snapshots.test.ts compares), so a
 * reviewer reads the text that runs.
 *
 * Every occurrence of a name is the same `$n` (numbered by first appearance); knex's text has a `?` per
 * occurrence, its values repeated. PostgreSQL deduces one type per `$n`: a name used with two casts
 * that disagree fails to prepare (test/sql-snapshots.test.ts prepares every statement).
 */

/** What a statement binds at one position: a named parameter, or one value of a spliced fragment's. */
export interface Binding {
  readonly name: string;
  /** The index in the fragment's bindings (see `fragment`), or undefined for a plain parameter. */
  readonly index?: number;
}

/**
 * A statement: `Params` is the object a call site passes (a fragment's parameter is its bindings, an
 * array), `Row` what a row of its answer is.
 */
export interface SqlStatement<Params extends object = Record<string, unknown>, Row = Record<string, unknown>> {
  /** The source file (without its extension) that declares it: its snapshot is `sql/<source>.sql`. */
  readonly source: string;
  readonly name: string;
  /** The text with `$1`, `$2`, …: what a prepared statement sends. */
  readonly text: string;
  /** The parameter bound at each position ($1 first). */
  readonly order: readonly Binding[];
  /** The positional values of `params`, in `order`. */
  values(params: Params): unknown[];
  /** The same text with a `?` at each occurrence of a parameter: what MikroORM's `em.execute` (knex) takes. */
  readonly knexText: string;
  /** The values of `knexText`'s placeholders (one per occurrence). */
  knexValues(params: Params): unknown[];
  /** Never set: carries the row type to the runners. */
  readonly row?: Row;
}

/** A statement whose text depends on options (filters, an order, a spliced fragment): one statement per variant. */
export interface StatementFamily<V, Params extends object, Row> {
  /** The statement of `variant`, compiled on its first use and kept by its key. */
  (variant: V): SqlStatement<Params, Row>;
}

interface FamilyEntry {
  readonly name: string;
  /** The representative variants written to the snapshot, by label. */
  readonly examples: () => Readonly<Record<string, SqlStatement>>;
}

type Entry = { readonly kind: 'statement'; readonly statement: SqlStatement } | { readonly kind: 'family'; readonly family: FamilyEntry };

const registry = new Map<string, Entry[]>();

/** Every declared statement and family, by source file, in declaration order (the snapshots' input). */
export function declaredStatements(): ReadonlyMap<string, ReadonlyArray<Entry>> {
  return registry;
}

/** The statements of one variant of a family, for its snapshot: `examples` in declaration order. */
export function familyExamples(entry: Entry): Array<[label: string, statement: SqlStatement]> {
  if (entry.kind === 'statement') return [['', entry.statement]];
  return Object.entries(entry.family.examples());
}

/**
 * `?` placeholders of a positional fragment made elsewhere (an outbox CTE's `SqlPart`) as the named
 * parameter `name`, one position per `?`: pass the fragment's bindings as that parameter (an array).
 * Every `?` of the fragment is a placeholder, as `numberedPlaceholders` has always assumed.
 */
export function fragment(name: string, sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `:${name}.${index++}`);
}

/**
 * The declarer of one source file's statements: `const sql = sqlStatements(__filename)`, then
 * `sql.statement(name, text)` and `sql.family(…)` at the module's top level.
 */
export function sqlStatements(filename: string) {
  const source = path.basename(filename).replace(/\.(ts|js)$/, '');
  const entries = registry.get(source) ?? [];
  registry.set(source, entries);
  const names = new Set<string>();
  const claim = (name: string) => {
    if (names.has(name)) throw new Error(`${source}: statement ${name} is declared twice`);
    names.add(name);
  };
  return {
    /** A fixed statement, compiled now. */
    statement<Params extends object, Row = Record<string, unknown>>(name: string, text: string): SqlStatement<Params, Row> {
      claim(name);
      const statement = compileStatement<Params, Row>(source, name, text);
      entries.push({ kind: 'statement', statement: statement as SqlStatement });
      return statement;
    },
    /**
     * A statement built per variant: `build` makes the named-parameter text of a variant, `key` names a
     * variant (the same key must always build the same text), `examples` the variants whose text the
     * snapshot shows (every shape the options can take, or a representative set), by label.
     */
    family<V, Params extends object, Row = Record<string, unknown>>(
      name: string,
      build: (variant: V) => string,
      options: { key: (variant: V) => string; examples: () => Readonly<Record<string, V>> },
    ): StatementFamily<V, Params, Row> {
      claim(name);
      const compiled = new Map<string, SqlStatement<Params, Row>>();
      const of = (variant: V): SqlStatement<Params, Row> => {
        const key = options.key(variant);
        let statement = compiled.get(key);
        if (statement === undefined) {
          statement = compileStatement<Params, Row>(source, name, build(variant));
          compiled.set(key, statement);
        }
        return statement;
      };
      entries.push({
        kind: 'family',
        family: {
          name,
          examples: () => Object.fromEntries(Object.entries(options.examples()).map(([label, variant]) => [label, compileStatement(source, name, build(variant))])),
        },
      });
      return of;
    },
  };
}

/** `:name` or `:name.0` (a fragment's value), not part of a `::cast` and not inside a quoted string or identifier. */
const TOKEN = /'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|(?<![:\w]):([A-Za-z_]\w*)(?:\.(\d+))?/g;

/** Compiles a named-parameter text (see the file's comment); exported for tests. */
export function compileStatement<Params extends object, Row = Record<string, unknown>>(source: string, name: string, named: string): SqlStatement<Params, Row> {
  // The text between parameters, and the parameter after each piece.
  const pieces: string[] = [];
  const occurrences: Binding[] = [];
  let last = 0;
  for (const match of named.matchAll(TOKEN)) {
    const [whole, parameter, index] = match;
    if (parameter === undefined) continue;
    pieces.push(named.slice(last, match.index));
    occurrences.push(index === undefined ? { name: parameter } : { name: parameter, index: Number(index) });
    last = match.index + whole.length;
  }
  pieces.push(named.slice(last));
  if (pieces.some((piece) => piece.replace(/'(?:[^']|'')*'/g, '').includes('?'))) {
    // The ORM's knex would take a `?` for a positional placeholder that no name covers.
    throw new Error(`${source}: statement ${name} has a '?': use a :name, or fragment() for a positional part made elsewhere`);
  }
  // `$n`: one position per distinct parameter, numbered by first appearance.
  const order: Binding[] = [];
  const positions = new Map<string, number>();
  let text = pieces[0];
  occurrences.forEach((binding, at) => {
    const key = binding.index === undefined ? binding.name : `${binding.name}.${binding.index}`;
    let position = positions.get(key);
    if (position === undefined) {
      order.push(binding);
      position = order.length;
      positions.set(key, position);
    }
    text += `$${position}${pieces[at + 1]}`;
  });
  const names = [...new Set(order.map((binding) => binding.name))];
  const valuesOf = (bindings: readonly Binding[]) => (params: Params): unknown[] => {
    const record = params as Readonly<Record<string, unknown>>;
    for (const parameter of names) {
      if (!(parameter in record)) throw new Error(`${source}: statement ${name} needs the parameter ${parameter}`);
    }
    // A loop, not map: it runs for every statement of every request.
    const values = new Array<unknown>(bindings.length);
    for (let at = 0; at < bindings.length; at += 1) {
      const { name: parameter, index } = bindings[at];
      values[at] = index === undefined ? record[parameter] : (record[parameter] as readonly unknown[])[index];
    }
    return values;
  };
  return { source, name, text, order, values: valuesOf(order), knexText: pieces.join('?'), knexValues: valuesOf(occurrences) };
}
