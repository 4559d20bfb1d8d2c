type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | EventListener | undefined | null>;

/** One element: attributes (`on…` become listeners, `true` a bare attribute, false/null/undefined nothing) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** A wide table in a region that scrolls sideways on a narrow screen (focusable, so the keyboard can scroll it). */
export function scrollingTable(label: string, headers: string[], rows: Node[]): HTMLElement {
  return h(
    'div',
    { class: 'table-scroll', role: 'region', 'aria-label': label, tabindex: 0 },
    h('table', {}, h('caption', { class: 'visually-hidden' }, label), h('thead', {}, h('tr', {}, ...headers.map((text) => h('th', { scope: 'col' }, text)))), h('tbody', {}, ...rows)),
  );
}

export function formatDate(iso: string | null): string {
  if (iso === null) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A modal confirmation (native <dialog>: focus moves in, Escape cancels). Resolves true on confirm. */
export function confirmDialog(title: string, body: Node | string, confirmLabel: string, extra?: Node): Promise<boolean> {
  return new Promise((resolve) => {
    const titleId = `dialog-title-${Math.random().toString(36).slice(2)}`;
    const dialog = h(
      'dialog',
      { 'aria-labelledby': titleId },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: titleId }, title),
        typeof body === 'string' ? h('p', {}, body) : body,
        extra,
        h(
          'div',
          { class: 'actions' },
          h('button', { type: 'submit', value: 'cancel', class: 'secondary' }, 'Cancel'),
          h('button', { type: 'submit', value: 'confirm', class: 'danger' }, confirmLabel),
        ),
      ),
    );
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'confirm');
      dialog.remove();
    });
    document.body.appendChild(dialog);
    dialog.showModal();
  });
}

/** A secret shown once: a read-only field, a copy button and the warning that it will not be shown again. */
export function secretPanel(label: string, secret: string, warning: string, copyLabel: string): HTMLElement {
  const inputId = `secret-${Math.random().toString(36).slice(2)}`;
  const input = h('input', { id: inputId, type: 'text', readonly: true, value: secret, class: 'secret', spellcheck: 'false', autocomplete: 'off' });
  const copied = h('span', { role: 'status', class: 'copied' });
  const copy = h('button', {
    type: 'button',
    onclick: () => {
      input.select();
      void navigator.clipboard?.writeText(secret).then(
        () => (copied.textContent = 'Copied'),
        () => (copied.textContent = 'Press Ctrl+C to copy'),
      );
    },
  }, copyLabel);
  return h('section', { class: 'secret-panel', 'aria-label': label }, h('p', { class: 'warning' }, h('strong', {}, 'Copy it now. '), warning), h('label', { for: inputId }, label), h('div', { class: 'secret-row' }, input, copy, copied));
}

/** A form field's text ('' when absent). */
export function field(data: FormData, name: string): string {
  const value = data.get(name);
  return typeof value === 'string' ? value : '';
}

/** What a MEMBER may not do on a page, said where the controls would be (D19). */
export function readOnlyNote(text: string): HTMLElement {
  return h('p', { class: 'note' }, h('strong', {}, 'Read only: '), text);
}
