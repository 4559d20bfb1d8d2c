import { randomUUID } from 'node:crypto';

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Every response carries X-Request-Id: the caller's, when it is a sane token, else a new one. */
export function requestIdOf(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && ACCEPTABLE_ID.test(incoming) ? incoming : randomUUID();
}
