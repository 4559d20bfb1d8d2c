import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

/** TRUST_PROXY trusts one hop, as Express's `trust proxy` set to 1 (src/app.ts). */
const ONE_HOP = (_address: string, hop: number): boolean => hop < 1;

/**
 * The client's address as Express's `req.ip` gives it, through the same library (proxy-addr): with
 * TRUST_PROXY, the last X-Forwarded-For entry (the peer the proxy saw), else the socket's address.
 */
export function clientIpOf(req: IncomingMessage, trustProxy: boolean): string | undefined {
  return trustProxy ? proxyaddr(req, ONE_HOP) : req.socket.remoteAddress;
}
