import { API_KEY_COMMANDS } from './api-key.commands';
import type { Command } from './command';
import { DB_COMMANDS } from './db.commands';
import { MEMBER_INVITE_COMMAND } from './member-invite.command';
import { MEMBER_COMMANDS } from './member.commands';
import { ORGANIZATION_COMMANDS } from './organization.commands';
import { SECRET_COMMANDS } from './secret.commands';
import { SERIES_COMMANDS } from './series.commands';
import { WEBHOOK_COMMANDS } from './webhook.commands';

export type { Command } from './command';

/** Every admin command, in the order `--help` lists them. */
export const COMMANDS: Command[] = [
  ...DB_COMMANDS,
  ...SECRET_COMMANDS,
  ...ORGANIZATION_COMMANDS,
  ...API_KEY_COMMANDS,
  ...MEMBER_COMMANDS,
  MEMBER_INVITE_COMMAND,
  ...WEBHOOK_COMMANDS,
  ...SERIES_COMMANDS,
];
