import pino, { type DestinationStream, type Logger } from 'pino';

const KEY_IN_TEXT = /nk_(live|test)_[A-Za-z0-9]+/;
const SECRET_PARAMS = /^(api[_-]?key|key|token|access[_-]?token|authorization|secret|password)$/i;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** A part of a URL as logged: itself, or [REDACTED] when it holds a key once %-escapes are undone. */
function redactPart(raw: string): string {
  return KEY_IN_TEXT.test(decoded(raw)) ? '[REDACTED]' : raw;
}

/** A URL safe to log: secret-looking query values and anything shaped like an API key (even %-escaped) become [REDACTED]. */
export function redactUrl(url: string): string {
  const questionMark = url.indexOf('?');
  const path = (questionMark === -1 ? url : url.slice(0, questionMark)).split('/').map(redactPart).join('/');
  if (questionMark === -1) return path;
  const query = url
    .slice(questionMark + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      const loggedName = redactPart(name);
      if (equals === -1) return loggedName;
      const value = pair.slice(equals + 1);
      if (SECRET_PARAMS.test(decoded(name))) return `${loggedName}=[REDACTED]`;
      return `${loggedName}=${redactPart(value)}`;
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
