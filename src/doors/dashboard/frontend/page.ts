import type { SessionInfo } from './api';

/** What every page gets: who is signed in, where to render, and how to report. */
export interface PageContext {
  readonly session: SessionInfo;
  readonly isAdmin: boolean;
  readonly main: HTMLElement;
  /** Shows an API error (its message) in the page's alert region. */
  showError(error: unknown): void;
  /** Announces a success in the status region. */
  announce(message: string): void;
  /** Re-renders the current page. */
  reload(): void;
}

/** One page of the dashboard: add an entry to PAGES in pages/index.ts to add a page. */
export interface Page {
  readonly path: string;
  readonly title: string;
  render(context: PageContext): Promise<void>;
}
