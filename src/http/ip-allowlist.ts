import type { OrganizationSnapshot } from '../platform/auth/auth-context';
import { AppError } from '../foundation/errors/app-error';
import { IpAllowlist } from '../modules/organization/ip-allowlist';

// Snapshots are cached with their key and replaced when the organization changes, so each list is
// parsed once per snapshot rather than once per request.
const parsed = new WeakMap<OrganizationSnapshot, IpAllowlist>();

function allowlistOf(organization: OrganizationSnapshot): IpAllowlist {
  let allowlist = parsed.get(organization);
  if (allowlist === undefined) {
    allowlist = new IpAllowlist(organization.allowedIps);
    parsed.set(organization, allowlist);
  }
  return allowlist;
}

/**
 * D11: an organization in STRICT mode with a non-empty list (the pipeline's ip-allowlist step asks
 * only then) is reachable only from its ranges. `ip` is the socket address, or the X-Forwarded-For
 * client when TRUST_PROXY is set (req.ip).
 */
export function assertIpAllowed(organization: OrganizationSnapshot, ip: string | undefined): void {
  if (!allowlistOf(organization).allows(ip)) {
    throw AppError.ipNotAllowed(IpAllowlist.clientAddress(ip) ?? ip);
  }
}
