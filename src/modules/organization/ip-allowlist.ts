import ipaddr from 'ipaddr.js';
import type { FieldError } from '../../foundation/errors/app-error';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

/** Enough for every office and egress range of a large customer; a longer list is a configuration mistake. */
export const MAX_ALLOWED_IPS = 256;

/** IPv4-mapped IPv6 (::ffff:1.2.3.4) is the IPv4 address it carries, for entries and clients alike. */
function unmap(address: Address): Address {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
    ? (address as ipaddr.IPv6).toIPv4Address()
    : address;
}

function rangeString([address, bits]: Range): string {
  const full = address.kind() === 'ipv4' ? 32 : 128;
  return bits === full ? address.toString() : `${address.toString()}/${bits}`;
}

/** One entry as typed by an operator -> its canonical range, or why it is not one. */
function parseEntry(entry: string): Range | string {
  if (entry.includes('%')) return 'zone identifiers (%eth0) are not allowed';
  // ipaddr.js also accepts legacy IPv4 forms ("127.1", "0x7f.0.0.1"); an allowlist accepts only dotted quads.
  const [addressPart, bitsPart, extra] = entry.split('/');
  if (extra !== undefined) return 'expected an address or a CIDR range such as 203.0.113.0/24';
  const isIpv4 = ipaddr.IPv4.isValidFourPartDecimal(addressPart);
  const isIpv6 = !isIpv4 && ipaddr.IPv6.isValid(addressPart);
  if (!isIpv4 && !isIpv6) return 'not an IPv4 or IPv6 address (expected e.g. 203.0.113.7, 2001:db8::1 or 203.0.113.0/24)';
  let address: Address = ipaddr.parse(addressPart);
  const full = isIpv4 ? 32 : 128;
  let bits = full;
  if (bitsPart !== undefined) {
    if (!/^\d{1,3}$/.test(bitsPart) || Number(bitsPart) > full) return `the prefix length must be 0 to ${full}`;
    bits = Number(bitsPart);
  }
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    if (bits < 96) return 'an IPv4-mapped range needs a prefix length of at least 96';
    address = unmap(address);
    bits -= 96;
  }
  const network = address.kind() === 'ipv4'
    ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${bits}`)
    : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${bits}`);
  if (network.toString() !== address.toString()) {
    return `host bits are set; did you mean ${rangeString([network, bits])}?`;
  }
  return [address, bits];
}

/**
 * Validates every entry of an allowlist and returns it canonical (deduplicated, IPv4-mapped entries as
 * IPv4, IPv6 compressed), or the errors of every bad entry, each naming its position.
 */
export function normalizeAllowlist(entries: readonly string[], field = 'allowedIPs'): { list: string[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const list: string[] = [];
  if (entries.length > MAX_ALLOWED_IPS) errors.push({ field, message: `at most ${MAX_ALLOWED_IPS} entries` });
  entries.forEach((raw, index) => {
    const entry = raw.trim();
    const parsed = parseEntry(entry);
    if (typeof parsed === 'string') errors.push({ field: `${field}[${index}]`, message: `"${entry}": ${parsed}` });
    else if (!list.includes(rangeString(parsed))) list.push(rangeString(parsed));
  });
  return { list, errors };
}

/** A parsed allowlist: built once per cached organization snapshot, asked once per request. */
export class IpAllowlist {
  private readonly ranges: Range[];

  constructor(entries: readonly string[]) {
    this.ranges = entries.flatMap((entry) => {
      const parsed = parseEntry(entry);
      // Stored entries were validated on the way in; one that no longer parses matches nothing.
      return typeof parsed === 'string' ? [] : [parsed];
    });
  }

  /** The client address as it is reported (IPv4-mapped IPv6 shown as IPv4), or undefined if unreadable. */
  static clientAddress(ip: string | undefined): string | undefined {
    if (ip === undefined || !ipaddr.isValid(ip)) return undefined;
    return ipaddr.process(ip).toString();
  }

  allows(clientIp: string | undefined): boolean {
    if (clientIp === undefined || !ipaddr.isValid(clientIp)) return false;
    const address = ipaddr.process(clientIp);
    return this.ranges.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
  }
}
