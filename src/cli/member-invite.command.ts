import { loadDashboardSettings } from '../config';
import { InvitationService } from '../dashboard/invitation.service';
import { memberView } from '../modules/member/member.service';
import { type Command, parser } from './command';

export const MEMBER_INVITE_COMMAND: Command = {
  name: 'member invite',
  usage: 'member invite MEMBER_ID',
  help: `member invite MEMBER_ID
  Prints a one-time link (valid 24 hours) where the member sets a dashboard password. A new link makes
  earlier ones stop working. Links start with PUBLIC_URL (default https://localhost:$PORT).`,
  parse: parser({}, 1),
  async run(em, _options, [memberId]) {
    const invitation = await new InvitationService(em).invite(memberId, loadDashboardSettings().publicUrl);
    return { member: memberView(invitation.member), url: invitation.url, expiresAt: invitation.expiresAt.toISOString() };
  },
};
