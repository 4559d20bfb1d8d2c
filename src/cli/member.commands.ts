import { MemberService, memberView } from '../modules/member/member.service';
import { required } from './arguments';
import { type Command, parser } from './command';

export const MEMBER_COMMANDS: Command[] = [
  {
    name: 'member add',
    usage: 'member add --org ORG_ID --email EMAIL --name NAME [--role admin|member]',
    help: `member add --org ORG_ID --email EMAIL --name NAME [--role admin|member]
  Adds a member to an organization (role member by default). The email is stored in lower case and
  is unique within the organization.`,
    parse: parser({ org: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' } }),
    async run(em, options) {
      const member = await new MemberService(em).add({
        organizationId: required(options, 'org'),
        email: options.email ?? '',
        name: options.name ?? '',
        role: options.role,
      });
      return memberView(member);
    },
  },
];
