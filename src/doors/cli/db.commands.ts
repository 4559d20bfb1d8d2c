import { type Command, parser } from './command';

export const DB_COMMANDS: Command[] = [
  {
    name: 'db migrate',
    usage: 'db migrate',
    help: `db migrate
  Applies pending migrations (the server also does this at start; every command does it when the
  database lacks one) and says what it did: "applied" lists those it applied now ("status":
  "applied"), or none when there was nothing to do ("status": "up-to-date"); "migrations" lists every
  migration the database has.`,
    parse: parser({}),
    async run({ em }, _options, _positionals, { migrationsApplied }) {
      const rows = await em.getConnection().execute<{ name: string }[]>('select name from mikro_orm_migrations order by id');
      return {
        status: migrationsApplied.length > 0 ? 'applied' : 'up-to-date',
        applied: migrationsApplied,
        migrations: rows.map((row) => row.name),
      };
    },
  },
];
