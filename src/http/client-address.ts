import type { IncomingMessage } from 'node:http';

/**
 * The last address of an X-Forwarded-For list, as the `forwarded` package (Express's proxy-addr)
 * reads it: entries split on commas, spaces trimmed, empty entries skipped.
 */
function lastForwarded(header: string): string | undefined {
  let end = header.length;
  let start = header.length;
  for (let i = header.length - 1; i >= 0; i -= 1) {
    switch (header.charCodeAt(i)) {
      case 0x20:
        if (start === end) start = end = i;
        break;
      case 0x2c:
        if (start !== end) return header.substring(start, end);
        start = end = i;
        break;
      default:
        start = i;
        break;
    }
  }
  return start === end ? undefined : header.substring(start, end);
}

/**
 * The client's address as Express's `req.ip` gives it with `trust proxy` set to 1 hop (TRUST_PROXY):
 * the proxy appends the peer it saw to X-Forwarded-For, so the last entry is the client; without the
 * header, the socket's address. Without TRUST_PROXY, the socket's address.
 */
export function clientIpOf(req: IncomingMessage, trustProxy: boolean): string | undefined {
  if (trustProxy) {
    const header = req.headers['x-forwarded-for'];
    const forwarded = typeof header === 'string' ? lastForwarded(header) : undefined;
    if (forwarded !== undefined) return forwarded;
  }
  return req.socket.remoteAddress;
}
