import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Why a destination is refused, said to whoever registered it (and recorded on a refused attempt). */
export class DestinationRefused extends Error {}

export type Resolve = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const systemResolve: Resolve = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

// Names that only mean something inside a cloud or a host, whatever DNS says about them.
const INTERNAL_NAMES = /(^|\.)(localhost|internal|local)\.?$/i;

/**
 * Only global unicast addresses: no loopback, private, link-local (which holds 169.254.169.254, the
 * metadata service), unique-local, carrier-grade NAT, multicast, reserved or unspecified ones.
 * IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
 */
export function isForbiddenAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() !== 'unicast';
}

function hostnameOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** The URL rules checked without the network: syntax, scheme, credentials, literal addresses. */
export function destinationUrlError(value: string, allowPrivateNetworks: boolean): string | undefined {
  if (value.length > 2048) return 'url must be at most 2048 characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'url must be an absolute URL';
  }
  const schemes = allowPrivateNetworks ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return 'url must use https';
  if (url.username || url.password) return 'url must not contain credentials';
  if (url.hash) return 'url must not contain a fragment';
  if (allowPrivateNetworks) return undefined;
  const host = hostnameOf(url);
  if (ipaddr.isValid(host) ? isForbiddenAddress(host) : INTERNAL_NAMES.test(host)) {
    return 'url must not point at a loopback, private, link-local or metadata address';
  }
  return undefined;
}

/**
 * The addresses a hostname resolves to, refused when any of them is not public (D18): a name that
 * points inside the network is refused whatever else it points at.
 */
export async function resolvePublic(hostname: string, allowPrivateNetworks: boolean, resolve: Resolve = systemResolve) {
  if (ipaddr.isValid(hostname)) {
    if (!allowPrivateNetworks && isForbiddenAddress(hostname)) throw new DestinationRefused(`${hostname} is not a public address`);
    return [{ address: hostname, family: hostname.includes(':') ? 6 : 4 }];
  }
  const addresses = await resolve(hostname);
  if (addresses.length === 0) throw new DestinationRefused(`${hostname} has no address`);
  const forbidden = allowPrivateNetworks ? undefined : addresses.find((entry) => isForbiddenAddress(entry.address));
  if (forbidden) throw new DestinationRefused(`${hostname} resolves to ${forbidden.address}, which is not a public address`);
  return addresses;
}

/**
 * At registration: the URL rules, and the name's current addresses when it resolves. A name that does
 * not resolve (yet) is accepted: every send resolves and checks again before it connects.
 */
export async function registrationError(value: string, allowPrivateNetworks: boolean, resolve: Resolve = systemResolve): Promise<string | undefined> {
  const error = destinationUrlError(value, allowPrivateNetworks);
  if (error || allowPrivateNetworks) return error;
  try {
    await resolvePublic(hostnameOf(new URL(value)), false, resolve);
  } catch (refused) {
    if (refused instanceof DestinationRefused) return 'url must not point at a loopback, private, link-local or metadata address';
  }
  return undefined;
}

/**
 * The `lookup` of an outgoing request: resolves, refuses non-public addresses, and hands the socket the
 * checked addresses only, so the connection goes to exactly what was checked (no second resolution).
 */
export function checkedLookup(allowPrivateNetworks: boolean, resolve: Resolve = systemResolve): LookupFunction {
  return (hostname, options, callback) => {
    resolvePublic(hostname, allowPrivateNetworks, resolve).then(
      (addresses) => {
        const family = typeof options === 'object' ? options.family : undefined;
        const matching = addresses.filter((entry) => !family || entry.family === family);
        const usable = matching.length > 0 ? matching : addresses;
        if (typeof options === 'object' && options.all) callback(null, usable);
        else callback(null, usable[0].address, usable[0].family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, ''),
    );
  };
}
