import { type Command, parser } from './command';

export const DB_COMMANDS: Command[] = [
  {
    name: 'db migrate',
    usage: 'db migrate',
    help: `db migrate
  Applies pending migrations (the server also does this at start) and lists those applied so far.`,
    parse: parser({}),
    async run(em) {
      const rows = await em.getConnection().execute<{ name: string }[]>('select name from mikro_orm_migrations order by id');
      return { migrations: rows.map((row) => row.name) };
    },
  },
];
