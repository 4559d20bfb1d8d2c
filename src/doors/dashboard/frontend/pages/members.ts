import { messageOf, request } from '../api';
import { confirmDialog, field, formatDate, h, readOnlyNote, scrollingTable, secretPanel } from '../dom';
import {
  ChangeMemberRoleDocument,
  InviteMemberDocument,
  MembersDocument,
  ReinviteMemberDocument,
  RemoveMemberDocument,
  type ChangeMemberRoleMutation,
  type ChangeMemberRoleMutationVariables,
  type InviteMemberMutation,
  type InviteMemberMutationVariables,
  type MemberFieldsFragment,
  type MemberRole,
  type MembersQuery,
  type ReinviteMemberMutation,
  type ReinviteMemberMutationVariables,
  type RemoveMemberMutation,
  type RemoveMemberMutationVariables,
} from '../generated/operations';
import type { Page, PageContext } from '../page';

/** An invitation link just made, shown once at the top of the re-rendered list. */
let pendingLink: { name: string; url: string } | undefined;
const LINK_WARNING = 'Send this link to the member; it works once, for 24 hours, and is not shown again.';

function inviteForm(context: PageContext): HTMLFormElement {
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'invite-title' },
    h('h2', { id: 'invite-title' }, 'Invite a member'),
    h('label', { for: 'invite-email' }, 'Email'),
    h('input', { id: 'invite-email', name: 'email', type: 'email', required: true, autocomplete: 'off' }),
    h('label', { for: 'invite-name' }, 'Name'),
    h('input', { id: 'invite-name', name: 'name', required: true, maxlength: 200, autocomplete: 'off' }),
    h('label', { for: 'invite-role' }, 'Role'),
    h('select', { id: 'invite-role', name: 'role' }, h('option', { value: 'MEMBER' }, 'Member (read only)'), h('option', { value: 'ADMIN' }, 'Admin')),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Invite member')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const variables: InviteMemberMutationVariables = {
      input: { email: field(data, 'email'), name: field(data, 'name'), role: field(data, 'role') as MemberRole },
    };
    request<InviteMemberMutation, InviteMemberMutationVariables>(InviteMemberDocument, variables).then(
      ({ inviteMember }) => {
        pendingLink = { name: inviteMember.member.name, url: `${location.origin}${inviteMember.path}` };
        context.reload();
      },
      (error: unknown) => context.showError(error),
    );
  });
  return form;
}

function memberRow(context: PageContext, member: MemberFieldsFragment): HTMLTableRowElement {
  const cells = [h('td', {}, member.name), h('td', {}, member.email)];
  if (!context.isAdmin) return h('tr', {}, ...cells, h('td', {}, member.role), h('td', {}, formatDate(member.createdAt)));
  const roleId = `role-${member.id}`;
  const role = h(
    'select',
    { id: roleId, 'aria-label': `Role of ${member.name}` },
    h('option', { value: 'ADMIN', selected: member.role === 'ADMIN' }, 'Admin'),
    h('option', { value: 'MEMBER', selected: member.role === 'MEMBER' }, 'Member'),
  );
  role.addEventListener('change', async () => {
    const demoting = role.value === 'MEMBER';
    const confirmed = await confirmDialog(
      demoting ? `Make ${member.name} a member?` : `Make ${member.name} an admin?`,
      demoting
        ? 'They keep read-only access; the keys they created lose every write permission within a second.'
        : 'They can manage keys, members and settings; the keys they created regain their full scopes.',
      demoting ? 'Make member' : 'Make admin',
    );
    if (!confirmed) {
      role.value = member.role;
      return;
    }
    request<ChangeMemberRoleMutation, ChangeMemberRoleMutationVariables>(ChangeMemberRoleDocument, { id: member.id, role: role.value as MemberRole }).then(
      () => {
        context.announce(`${member.name} is now ${role.value === 'ADMIN' ? 'an admin' : 'a member'}`);
        context.reload();
      },
      (error: unknown) => {
        role.value = member.role;
        context.showError(error);
      },
    );
  });
  const reinvite = h('button', {
    type: 'button',
    class: 'secondary',
    'aria-label': `New link for ${member.name}`,
    onclick: () =>
      void request<ReinviteMemberMutation, ReinviteMemberMutationVariables>(ReinviteMemberDocument, { id: member.id }).then(
        ({ reinviteMember }) => {
          pendingLink = { name: member.name, url: `${location.origin}${reinviteMember.path}` };
          context.reload();
        },
        (error: unknown) => context.showError(error),
      ),
  }, 'New link');
  const confirmRemoval = async () => {
      const confirmed = await confirmDialog(
        `Remove ${member.name}?`,
        'Their sessions end and every key they created stops working within a second.',
        'Remove member',
      );
      if (!confirmed) return;
      request<RemoveMemberMutation, RemoveMemberMutationVariables>(RemoveMemberDocument, { id: member.id }).then(
        () => {
          context.announce(`${member.name} removed`);
          context.reload();
        },
        (error: unknown) => context.showError(error),
      );
  };
  const remove = h('button', { type: 'button', class: 'danger', 'aria-label': `Remove ${member.name}`, onclick: () => void confirmRemoval() }, 'Remove');
  return h('tr', {}, ...cells, h('td', {}, role), h('td', {}, formatDate(member.createdAt)), h('td', { class: 'row-actions' }, reinvite, remove));
}

export const membersPage: Page = {
  path: 'members',
  title: 'Members',
  async render(context) {
    const { main } = context;
    if (pendingLink !== undefined) {
      main.append(secretPanel(`Invitation link for ${pendingLink.name}`, pendingLink.url, LINK_WARNING, 'Copy link'));
      pendingLink = undefined;
    }
    if (context.isAdmin) main.append(inviteForm(context));
    else main.append(readOnlyNote('you see the organization’s members; only organization admins invite members, change roles or remove members.'));
    let result: MembersQuery;
    try {
      result = await request<MembersQuery, Record<string, never>>(MembersDocument);
    } catch (error) {
      main.append(h('p', { class: 'error-text' }, messageOf(error)));
      return;
    }
    const headers = ['Name', 'Email', 'Role', 'Joined', ...(context.isAdmin ? ['Actions'] : [])];
    main.append(scrollingTable('Members', headers, result.members.members.map((member) => memberRow(context, member))));
  },
};
