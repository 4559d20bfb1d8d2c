import { ClientError, GraphQLClient } from 'graphql-request';

export interface SessionInfo {
  member: { id: string; email: string; name: string; role: 'ADMIN' | 'MEMBER' };
  organization: { id: string; name: string; plan: string };
  permissions: string[];
  csrfToken: string;
}

let csrfToken = '';
const graphql = new GraphQLClient(`${location.origin}/graphql`, { credentials: 'same-origin' });

/** One GraphQL operation of ours, with the session's anti-forgery header. */
export function request<Result, Variables extends object>(document: string, variables?: Variables): Promise<Result> {
  return graphql.request<Result>({ document, variables, requestHeaders: { 'x-csrf-token': csrfToken } });
}

/** The message to show for a failed call: the API's own message (never swallowed). */
export function messageOf(error: unknown): string {
  if (error instanceof ClientError) {
    const first = error.response.errors?.[0];
    if (first) return first.message;
    const body = error.response as unknown as { error?: { message?: string } };
    if (body.error?.message) return body.error.message;
    return `The server answered ${error.response.status}`;
  }
  if (error instanceof ApiError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** A refusal as the door reads it: the error code (`ALREADY_CHECKED_IN`, …) and its details, beside the message. */
export interface Refusal {
  readonly code: string | undefined;
  readonly message: string;
  readonly details: Record<string, unknown>;
}

export function refusalOf(error: unknown): Refusal {
  if (error instanceof ClientError) {
    const extensions = (error.response.errors?.[0]?.extensions ?? {}) as { code?: unknown; details?: unknown };
    const details = extensions.details !== null && typeof extensions.details === 'object' ? (extensions.details as Record<string, unknown>) : {};
    return { code: typeof extensions.code === 'string' ? extensions.code : undefined, message: messageOf(error), details };
  }
  return { code: undefined, message: messageOf(error), details: {} };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function call(method: string, path: string, body?: unknown): Promise<Response> {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken || 'sign-in' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    const payload = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
    throw new ApiError(response.status, payload.error?.message ?? `The server answered ${response.status}`);
  }
  return response;
}

export async function currentSession(): Promise<SessionInfo | undefined> {
  try {
    const session = (await (await call('GET', '/dashboard/api/session')).json()) as SessionInfo;
    csrfToken = session.csrfToken;
    return session;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return undefined;
    throw error;
  }
}

export async function signIn(email: string, password: string): Promise<void> {
  const { csrfToken: token } = (await (await call('POST', '/dashboard/api/sign-in', { email, password })).json()) as { csrfToken: string };
  csrfToken = token;
}

export async function signOut(): Promise<void> {
  await call('POST', '/dashboard/api/sign-out');
  csrfToken = '';
}

export async function acceptInvitation(token: string, password: string): Promise<void> {
  await call('POST', '/dashboard/api/invitations/accept', { token, password });
}
