import type * as AddModule from '../../modules/member/commands/add-member';
import type * as RemoveModule from '../../modules/member/commands/remove-member';
import type * as ReadModelModule from '../../modules/member/member.read-model';
import type * as RepositoryModule from '../../modules/member/member.repository';
import type * as ViewModule from '../../modules/member/member.view';
import type * as OrganizationRepositoryModule from '../../modules/organization/organization.repository';
import { parsePositiveInteger, required } from './arguments';
import { type Command, parser } from './command';

// Required when a command runs, not when the command list is built (see Command).
const view = () => (require('../../modules/member/member.view') as typeof ViewModule).memberView;

export const MEMBER_COMMANDS: Command[] = [
  {
    name: 'member add',
    usage: 'member add --org ORG_ID --email EMAIL --name NAME [--role admin|member]',
    help: `member add --org ORG_ID --email EMAIL --name NAME [--role admin|member]
  Adds a member to an organization (role member by default). The email is stored in lower case and
  is unique within the organization.`,
    parse: parser({ org: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' } }),
    async run(scope, options) {
      const { addMember } = require('../../modules/member/commands/add-member') as typeof AddModule;
      const member = await addMember(scope, required(options, 'org'), { email: options.email ?? '', name: options.name ?? '', role: options.role });
      return view()(member);
    },
  },
  {
    name: 'member list',
    usage: 'member list --org ORG_ID [--page N] [--limit N]',
    help: `member list --org ORG_ID [--page N] [--limit N]
  Lists an organization's members, newest first, a page at a time (page 1, 20 a page by default;
  at most 100 a page): id, email, name, role, createdAt, with the total.`,
    parse: parser({ org: { type: 'string' }, page: { type: 'string' }, limit: { type: 'string' } }),
    async run({ em }, options) {
      const { listMembers } = require('../../modules/member/member.read-model') as typeof ReadModelModule;
      const { findOrganization } = require('../../modules/organization/organization.repository') as typeof OrganizationRepositoryModule;
      const organizationId = required(options, 'org');
      const page = options.page === undefined ? 1 : parsePositiveInteger(options.page, 'page');
      const limit = options.limit === undefined ? 20 : parsePositiveInteger(options.limit, 'limit');
      await findOrganization(em, organizationId);
      const list = await listMembers(em, organizationId, { page, limit });
      return { organizationId, total: list.total, page: list.page, limit: list.limit, members: list.members.map(view()) };
    },
  },
  {
    name: 'member remove',
    usage: 'member remove MEMBER_ID',
    help: `member remove MEMBER_ID
  Removes a member from its organization and prints the member as it was.`,
    parse: parser({}, 1),
    async run(scope, _options, [memberId]) {
      const { em } = scope;
      const { organizationOfMember } = require('../../modules/member/member.repository') as typeof RepositoryModule;
      const { removeMember } = require('../../modules/member/commands/remove-member') as typeof RemoveModule;
      // The operator may remove any member, the last admin included (member.policy.ts assertKeepsAnAdmin).
      return { removed: view()(await removeMember(scope, await organizationOfMember(em, memberId), memberId, 'operator')) };
    },
  },
];
