import pino, { type DestinationStream, type Logger } from 'pino';

const KEY_IN_TEXT = /nk_(live|test)_[A-Za-z0-9]+/g;
const SECRET_PARAMS = /^(api[_-]?key|key|token|access[_-]?token|authorization|secret|password)$/i;

/** A URL safe to log: secret-looking query values and anything shaped like an API key become [REDACTED]. */
export function redactUrl(url: string): string {
  const questionMark = url.indexOf('?');
  const path = (questionMark === -1 ? url : url.slice(0, questionMark)).replace(KEY_IN_TEXT, '[REDACTED]');
  if (questionMark === -1) return path;
  const query = url
    .slice(questionMark + 1)
    .split('&')
    .map((pair) => {
      const [name, ...rest] = pair.split('=');
      let decodedName = name;
      try {
        decodedName = decodeURIComponent(name);
      } catch {
        // keep the raw name
      }
      if (SECRET_PARAMS.test(decodedName)) return `${name}=[REDACTED]`;
      return [name, ...rest].join('=').replace(KEY_IN_TEXT, '[REDACTED]');
    })
    .join('&');
  return `${path}?${query}`;
}

/** JSON logs on stdout (or `destination`), with keys and Authorization headers redacted. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'event-service' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['authorization', 'headers.authorization', 'req.headers.authorization', '*.key', 'key', 'apiKey'],
        censor: '[REDACTED]',
      },
    },
    destination,
  );
}
