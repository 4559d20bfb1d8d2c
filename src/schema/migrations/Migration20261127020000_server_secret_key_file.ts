import { Migration } from '@mikro-orm/migrations';

/**
 * Where the first server's key file is (D24's development default, `DATA_DIR/secret.key`), when its
 * secret came from one: a CLI on the same machine without SECRET_KEY, run from another directory,
 * finds the right secret there instead of refusing (the file is only used when its fingerprint is the
 * recorded one). Null when the servers run with SECRET_KEY.
 */
export class Migration20261127020000_server_secret_key_file extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "server_secret" add column "key_file" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "server_secret" drop column "key_file";`);
  }
}
