import type * as MemberModule from '../modules/member/member.service';
import type * as OrganizationModule from '../modules/organization/organization.service';
import { parsePositiveInteger, required } from './arguments';
import { type Command, parser } from './command';

// Required when a command runs, not when the command list is built (see Command).
const members = () => require('../modules/member/member.service') as typeof MemberModule;

export const MEMBER_COMMANDS: Command[] = [
  {
    name: 'member add',
    usage: 'member add --org ORG_ID --email EMAIL --name NAME [--role admin|member]',
    help: `member add --org ORG_ID --email EMAIL --name NAME [--role admin|member]
  Adds a member to an organization (role member by default). The email is stored in lower case and
  is unique within the organization.`,
    parse: parser({ org: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' } }),
    async run(em, options) {
      const { MemberService, memberView } = members();
      const member = await new MemberService(em).add({
        organizationId: required(options, 'org'),
        email: options.email ?? '',
        name: options.name ?? '',
        role: options.role,
      });
      return memberView(member);
    },
  },
  {
    name: 'member list',
    usage: 'member list --org ORG_ID [--page N] [--limit N]',
    help: `member list --org ORG_ID [--page N] [--limit N]
  Lists an organization's members, newest first, a page at a time (page 1, 20 a page by default;
  at most 100 a page): id, email, name, role, createdAt, with the total.`,
    parse: parser({ org: { type: 'string' }, page: { type: 'string' }, limit: { type: 'string' } }),
    async run(em, options) {
      const { MemberService, memberView } = members();
      const { OrganizationService } = require('../modules/organization/organization.service') as typeof OrganizationModule;
      const organizationId = required(options, 'org');
      const page = options.page === undefined ? 1 : parsePositiveInteger(options.page, 'page');
      const limit = options.limit === undefined ? 20 : parsePositiveInteger(options.limit, 'limit');
      await new OrganizationService(em).get(organizationId);
      const list = await new MemberService(em).list(organizationId, { page, limit });
      return { organizationId, total: list.total, page: list.page, limit: list.limit, members: list.members.map(memberView) };
    },
  },
  {
    name: 'member remove',
    usage: 'member remove MEMBER_ID',
    help: `member remove MEMBER_ID
  Removes a member from its organization and prints the member as it was.`,
    parse: parser({}, 1),
    async run(em, _options, [memberId]) {
      const { MemberService, memberView } = members();
      return { removed: memberView(await new MemberService(em).remove(memberId)) };
    },
  },
];
