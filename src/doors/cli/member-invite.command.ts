import type * as IssueModule from '../../modules/member/commands/issue-invitation';
import type * as RepositoryModule from '../../modules/member/member.repository';
import type * as ViewModule from '../../modules/member/member.view';
import { type Command, parser } from './command';

export const MEMBER_INVITE_COMMAND: Command = {
  name: 'member invite',
  usage: 'member invite MEMBER_ID',
  help: `member invite MEMBER_ID
  Prints a one-time link (valid 24 hours) where the member sets a dashboard password. A new link makes
  earlier ones stop working. Links start with PUBLIC_URL (default https://localhost:$PORT).`,
  parse: parser({}, 1),
  async run(scope, _options, [memberId], { config }) {
    const { em } = scope;
    // Required when the command runs, not when the command list is built (see Command).
    const { issueInvitation } = require('../../modules/member/commands/issue-invitation') as typeof IssueModule;
    const { organizationOfMember } = require('../../modules/member/member.repository') as typeof RepositoryModule;
    const { memberView } = require('../../modules/member/member.view') as typeof ViewModule;
    const invitation = await issueInvitation(scope, await organizationOfMember(em, memberId), memberId, config.dashboard.publicUrl);
    return { member: memberView(invitation.member), url: invitation.url, expiresAt: invitation.expiresAt.toISOString() };
  },
};
