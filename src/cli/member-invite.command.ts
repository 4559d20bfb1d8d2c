import { loadDashboardSettings } from '../config';
import type * as InvitationModule from '../dashboard/invitation.service';
import type * as MemberModule from '../modules/member/member.service';
import { type Command, parser } from './command';

// Required when the command runs, not when the command list is built (see Command).
const invitations = () => require('../dashboard/invitation.service') as typeof InvitationModule;
const members = () => require('../modules/member/member.service') as typeof MemberModule;

export const MEMBER_INVITE_COMMAND: Command = {
  name: 'member invite',
  usage: 'member invite MEMBER_ID',
  help: `member invite MEMBER_ID
  Prints a one-time link (valid 24 hours) where the member sets a dashboard password. A new link makes
  earlier ones stop working. Links start with PUBLIC_URL (default https://localhost:$PORT).`,
  parse: parser({}, 1),
  async run(em, _options, [memberId]) {
    const invitation = await new (invitations().InvitationService)(em).invite(memberId, loadDashboardSettings().publicUrl);
    return { member: members().memberView(invitation.member), url: invitation.url, expiresAt: invitation.expiresAt.toISOString() };
  },
};
