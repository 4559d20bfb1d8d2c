import { acceptInvitation, currentSession, messageOf, signIn, signOut, type SessionInfo } from './api';
import { append, field, h } from './dom';
import type { Page, PageContext } from './page';
import { PAGES, pageAt } from './pages';

const root = document.getElementById('app') as HTMLElement;
const status = h('div', { role: 'status', 'aria-live': 'polite', class: 'status' });
const alert = h('div', { role: 'alert', class: 'alert' });

function showError(error: unknown): void {
  alert.replaceChildren(h('p', {}, h('strong', {}, 'Error: '), messageOf(error)));
}

function clearMessages(): void {
  alert.replaceChildren();
  status.replaceChildren();
}

function frame(title: string, ...content: Node[]): HTMLElement {
  const main = h('main', { id: 'main', tabindex: -1 }, h('h1', {}, title), alert, status, ...content);
  root.replaceChildren(main);
  document.title = `${title} · Event service dashboard`;
  return main;
}

function signInPage(): void {
  const form = h(
    'form',
    { class: 'card narrow', 'aria-labelledby': 'sign-in-title' },
    h('h2', { id: 'sign-in-title', class: 'visually-hidden' }, 'Sign in'),
    h('label', { for: 'sign-in-email' }, 'Email'),
    h('input', { id: 'sign-in-email', name: 'email', type: 'email', required: true, autocomplete: 'username' }),
    h('label', { for: 'sign-in-password' }, 'Password'),
    h('input', { id: 'sign-in-password', name: 'password', type: 'password', required: true, autocomplete: 'current-password' }),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Sign in')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    signIn(field(data, 'email'), field(data, 'password')).then(
      () => go('#/keys'),
      showError,
    );
  });
  frame('Sign in to the dashboard', form);
  (form.querySelector('input') as HTMLInputElement).focus();
}

function invitePage(token: string): void {
  const form = h(
    'form',
    { class: 'card narrow', 'aria-labelledby': 'invite-accept-title' },
    h('h2', { id: 'invite-accept-title', class: 'visually-hidden' }, 'Choose a password'),
    h('p', {}, 'Choose a password of at least 12 characters. This link works once.'),
    h('label', { for: 'new-password' }, 'New password'),
    h('input', { id: 'new-password', name: 'password', type: 'password', required: true, minlength: 12, autocomplete: 'new-password' }),
    h('label', { for: 'repeat-password' }, 'Repeat the password'),
    h('input', { id: 'repeat-password', name: 'repeat', type: 'password', required: true, minlength: 12, autocomplete: 'new-password' }),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Set password')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    if (field(data, 'password') !== field(data, 'repeat')) {
      showError(new Error('The two passwords differ'));
      return;
    }
    acceptInvitation(token, field(data, 'password')).then(() => {
      // The token leaves the address bar and the history entry.
      history.replaceState(null, '', '/dashboard/#/sign-in');
      signInPage();
      status.replaceChildren('Password set. Sign in with your email and the new password.');
    }, showError);
  });
  frame('Set your dashboard password', form);
}

function shell(session: SessionInfo, page: Page): HTMLElement {
  const nav = h(
    'nav',
    { 'aria-label': 'Dashboard' },
    // A page under another (an event's) marks its section's entry as the current location, not as itself.
    h('ul', {}, ...PAGES.map((one) => h('li', {}, h('a', { href: `#/${one.path}`, 'aria-current': one === page ? 'page' : one.path === page.section ? 'true' : false }, one.title)))),
  );
  const signOutButton = h('button', {
    type: 'button',
    class: 'secondary',
    onclick: () =>
      void signOut().then(() => go('#/sign-in'), showError),
  }, 'Sign out');
  const header = h(
    'header',
    { class: 'topbar' },
    h('div', { class: 'brand' }, h('strong', {}, session.organization.name), h('span', { class: 'who' }, `${session.member.name} · ${session.member.role === 'ADMIN' ? 'admin' : 'member'}`)),
    signOutButton,
  );
  const main = h('main', { id: 'main', tabindex: -1 }, h('h1', {}, page.title), alert, status);
  root.replaceChildren(h('a', { href: '#main', class: 'skip-link', onclick: (event: Event) => { event.preventDefault(); main.focus(); } }, 'Skip to content'), header, nav, main);
  setTitle(session, main, page.title);
  return main;
}

function setTitle(session: SessionInfo, main: HTMLElement, title: string): void {
  (main.querySelector('h1') as HTMLElement).textContent = title;
  document.title = `${title} · ${session.organization.name}`;
}

async function renderPage(session: SessionInfo, page: Page): Promise<void> {
  const main = shell(session, page);
  const content = h('div', { class: 'content' });
  append(main, content);
  const context: PageContext = {
    session,
    isAdmin: session.member.role === 'ADMIN',
    main: content,
    showError,
    announce: (message) => status.replaceChildren(message),
    reload: () => {
      alert.replaceChildren();
      content.replaceChildren();
      page.render(context).catch(showError);
    },
    setTitle: (title) => setTitle(session, main, title),
  };
  await page.render(context).catch(showError);
}

/** Goes to a page: a changed hash routes through hashchange, an unchanged one routes here (once either way). */
function go(hash: string): void {
  if (location.hash === hash) void route();
  else location.hash = hash;
}

/** Each route() takes a number; one that a later route() overtook while it waited draws nothing. */
let routeGeneration = 0;

async function route(): Promise<void> {
  const generation = ++routeGeneration;
  clearMessages();
  const path = location.hash.replace(/^#\/?/, '');
  const invite = /^invite\/([A-Za-z0-9_-]+)$/.exec(path);
  if (invite) return invitePage(invite[1]);
  let session: SessionInfo | undefined;
  try {
    session = await currentSession();
  } catch (error) {
    frame('Dashboard');
    showError(error);
    return;
  }
  if (generation !== routeGeneration) return;
  if (!session) return signInPage();
  await renderPage(session, pageAt(path));
}

window.addEventListener('hashchange', () => void route());
void route();
