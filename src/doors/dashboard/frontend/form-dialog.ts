import { messageOf } from './api';
import { h } from './dom';

/**
 * A modal form (native <dialog>: focus moves in, Escape cancels). `submit` runs with the form's data; a
 * refusal it throws is shown inside the dialog, which stays open so the entry can be corrected. Resolves
 * true once `submit` succeeded, false when cancelled.
 */
export function formDialog(title: string, fields: Node[], submitLabel: string, submit: (data: FormData) => Promise<void>): Promise<boolean> {
  return new Promise((resolve) => {
    const titleId = `dialog-title-${Math.random().toString(36).slice(2)}`;
    const alert = h('div', { role: 'alert', class: 'alert' });
    const send = h('button', { type: 'submit', value: 'confirm' }, submitLabel);
    const form = h(
      'form',
      { method: 'dialog' },
      h('h2', { id: titleId }, title),
      alert,
      ...fields,
      h('div', { class: 'actions' }, h('button', { type: 'submit', value: 'cancel', class: 'secondary', formnovalidate: true }, 'Cancel'), send),
    );
    const dialog = h('dialog', { 'aria-labelledby': titleId }, form);
    let succeeded = false;
    form.addEventListener('submit', (event) => {
      if ((event.submitter as HTMLButtonElement | null)?.value === 'cancel') return;
      event.preventDefault();
      send.disabled = true;
      alert.replaceChildren();
      submit(new FormData(form)).then(
        () => {
          succeeded = true;
          dialog.close();
        },
        (error: unknown) => {
          send.disabled = false;
          alert.replaceChildren(h('p', {}, h('strong', {}, 'Error: '), messageOf(error)));
        },
      );
    });
    dialog.addEventListener('close', () => {
      resolve(succeeded);
      dialog.remove();
    });
    document.body.appendChild(dialog);
    dialog.showModal();
  });
}
