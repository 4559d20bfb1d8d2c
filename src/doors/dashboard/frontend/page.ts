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
  /** Names the page once its data says what it is (an event's title): the heading and the window's title. */
  setTitle(title: string): void;
}

/** One page of the dashboard: add an entry to PAGES (or ROUTES) in pages/index.ts to add a page. */
export interface Page {
  readonly path: string;
  readonly title: string;
  /** The navigation entry a page under another belongs to (an event's page: events). */
  readonly section?: string;
  render(context: PageContext): Promise<void>;
}

/** A page reached from another one, with a part of its address as its argument (#/events/launch-2027). */
export interface Route {
  readonly pattern: RegExp;
  /** The page for a matching path; `parts` are the pattern's groups, already decoded. */
  page(parts: string[]): Page;
}
