import { h } from './dom';

/**
 * Where a cursor-paged list is (D25): the `after` of each page shown so far, so that Previous goes back
 * without page numbers (a cursor page costs the same at any depth; a page number does not).
 */
export class CursorPages {
  private cursors: Array<string | null> = [null];

  /** The `after` of the page to show (null: the first). */
  get after(): string | null {
    return this.cursors[this.cursors.length - 1];
  }

  /** 1 for the first page. */
  get number(): number {
    return this.cursors.length;
  }

  forward(nextCursor: string): void {
    this.cursors.push(nextCursor);
  }

  back(): void {
    if (this.cursors.length > 1) this.cursors.pop();
  }

  reset(): void {
    this.cursors = [null];
  }
}

/** Previous / next buttons and where the page is (`Page 2 of 3 · 45 events`), for a list read with `after`. */
export function cursorPager(
  label: string,
  pages: CursorPages,
  list: { total: number; nextCursor: string | null },
  limit: number,
  noun: [one: string, many: string],
  reload: () => void,
): HTMLElement {
  const count = Math.max(1, Math.ceil(list.total / limit));
  return h(
    'nav',
    { class: 'actions pager', 'aria-label': label },
    h('button', { type: 'button', class: 'secondary', disabled: pages.number <= 1, onclick: () => {
          pages.back();
          reload();
        } }, 'Previous page'),
    h('span', { class: 'hint', 'aria-live': 'polite' }, `Page ${pages.number} of ${count} · ${list.total} ${list.total === 1 ? noun[0] : noun[1]}`),
    h('button', { type: 'button', class: 'secondary', disabled: list.nextCursor === null, onclick: () => {
          if (list.nextCursor === null) return;
          pages.forward(list.nextCursor);
          reload();
        } }, 'Next page'),
  );
}
