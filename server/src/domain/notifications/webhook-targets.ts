import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Webhooks go to public hosts only: a notification's owner could otherwise make the server POST to its loopback
 * services, the cloud metadata endpoint, hosts of the private network, or through a translation prefix (NAT64,
 * 6to4, Teredo, IPv4-mapped) to any of those. An address is public when ipaddr.js, which follows IANA's
 * special-purpose address registries, puts it in no special range ('unicast'); every other range is refused unless
 * the operator allows them (WEBHOOK_ALLOW_PRIVATE=true, for local use).
 */
export function isPrivateAddress(address: string): boolean {
  const ip = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIP(ip) === 0) return false;
  return ipaddr.parse(ip).range() !== 'unicast';
}

/** The URL's host as an IP address when it is one (`[::1]` gives `::1`), otherwise undefined. */
export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? undefined : host;
}

export const PRIVATE_TARGET_RULE = 'webhooks to loopback, private, link-local and other special-purpose addresses are refused unless the server runs with WEBHOOK_ALLOW_PRIVATE=true';

/** Why a delivery to `host` at `address` is refused. */
export const privateTargetError = (host: string, address: string): Error =>
  new Error(host === address ? `${address} is a private address: ${PRIVATE_TARGET_RULE}` : `${host} resolves to ${address}, a private address: ${PRIVATE_TARGET_RULE}`);

/**
 * A DNS lookup for sockets that answers only public addresses: the socket connects to the very address that was
 * checked, so a name cannot resolve to a public address for a check and to a private one for the connection.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, options.all ? [] : '', 0);
    const allowed = addresses.filter((entry) => !isPrivateAddress(entry.address));
    if (allowed.length === 0) {
      const refused = Object.assign(privateTargetError(hostname, addresses[0]?.address ?? hostname), { code: 'EPRIVATEADDRESS' });
      return callback(refused, options.all ? [] : '', 0);
    }
    if (options.all) return callback(null, allowed);
    callback(null, allowed[0]!.address, allowed[0]!.family);
  });
};
