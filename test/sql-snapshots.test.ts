import 'reflect-metadata';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { compileStatement, fragment } from '../src/platform/db/sql-statement';
import { renderSqlSnapshots, SQL_SNAPSHOT_DIR } from '../src/schema/sql-snapshots';
import { createTestDatabase, type TestDatabase } from './helpers/database';

// Contract guard: sql/*.sql is the text of every declared statement (src/platform/db/sql-statement.ts),
// generated from the code and committed, so a reviewer reads the SQL that runs.

const rendered = renderSqlSnapshots();
const REGENERATE = 'run `npm run --silent sql:snapshots` and commit sql/';

describe('sql/ snapshots', () => {
  test('every snapshot file matches the statements the code declares', () => {
    const committed = readdirSync(SQL_SNAPSHOT_DIR).filter((name) => name.endsWith('.sql'));
    const problems: string[] = [];
    for (const [name, content] of rendered) {
      let onDisk: string | undefined;
      try {
        onDisk = readFileSync(path.join(SQL_SNAPSHOT_DIR, name), 'utf8');
      } catch {
        problems.push(`sql/${name} is missing`);
        continue;
      }
      if (onDisk !== content) {
        const line = content.split('\n').findIndex((text, index) => text !== onDisk.split('\n')[index]) + 1;
        problems.push(`sql/${name} is out of date (first difference at line ${line})`);
      }
    }
    for (const name of committed) if (!rendered.has(name)) problems.push(`sql/${name} belongs to no declaring file`);
    if (problems.length > 0) throw new Error(`${problems.join('\n')}\n${REGENERATE}`);
  });

  test('the snapshots cover the converted files', () => {
    expect([...rendered.keys()]).toEqual(expect.arrayContaining(['event.read-repository.sql', 'event.repository.sql']));
  });

  describe('on PostgreSQL, against the migrated schema', () => {
    let database: TestDatabase;
    let client: Client;
    beforeAll(async () => {
      database = await createTestDatabase();
      client = new Client({ connectionString: database.url });
      await client.connect();
    });
    afterAll(async () => {
      await client?.end();
      await database?.drop();
    });

    // PREPARE parses, resolves and plans without running: a typo, a wrong column or a parameter that
    // PostgreSQL cannot type fails here rather than in the one request that takes that branch.
    test('every snapshot statement prepares', async () => {
      const failures: string[] = [];
      let count = 0;
      for (const [name, content] of rendered) {
        for (const block of content.split(/\n\n(?=-- name: )/).slice(1)) {
          const title = block.slice('-- name: '.length, block.indexOf('\n'));
          const text = block.split('\n').slice(2).join('\n').replace(/;\n?$/, '');
          count += 1;
          try {
            await client.query(`prepare snapshot_check as ${text}`);
            await client.query('deallocate snapshot_check');
          } catch (error) {
            failures.push(`sql/${name} ${title}: ${(error as Error).message}`);
          }
        }
      }
      expect(count).toBeGreaterThan(0);
      expect(failures).toEqual([]);
    });
  });
});

describe('named parameters', () => {
  test('compile to one position per name, numbered by first appearance (knex: one ? per occurrence)', () => {
    const statement = compileStatement('x', 'example', `select :a::int, :b, ':c', "x:d", :a -- :e\nfrom t where t.n = :b::text`);
    expect(statement.text).toBe(`select $1::int, $2, ':c', "x:d", $1 -- :e\nfrom t where t.n = $2::text`);
    expect(statement.order.map((binding) => binding.name)).toEqual(['a', 'b']);
    expect(statement.values({ a: 1, b: 'two' })).toEqual([1, 'two']);
    expect(statement.knexText).toBe(`select ?::int, ?, ':c', "x:d", ? -- :e\nfrom t where t.n = ?::text`);
    expect(statement.knexValues({ a: 1, b: 'two' })).toEqual([1, 'two', 1, 'two']);
  });

  test('a fragment made with positional placeholders binds its values by index', () => {
    const statement = compileStatement('x', 'example', `with ${fragment('part', 'p as (select ?::int, ?::text)')} select :id`);
    expect(statement.text).toBe('with p as (select $1::int, $2::text) select $3');
    expect(statement.values({ part: [7, 'seven'], id: 'e' })).toEqual([7, 'seven', 'e']);
  });

  test('a missing parameter and a stray ? are refused', () => {
    expect(() => compileStatement('x', 'stray', 'select ?').text).toThrow(/has a '\?'/);
    expect(compileStatement('x', 'quoted', `select '?'`).text).toBe(`select '?'`);
    const statement = compileStatement('x', 'missing', 'select :a, :b');
    expect(() => statement.values({ a: 1 })).toThrow('needs the parameter b');
  });
});
