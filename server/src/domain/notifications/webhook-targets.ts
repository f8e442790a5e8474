import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Webhooks must not reach into the server's own network: a notification's owner could otherwise make the server
 * POST to its loopback services, the cloud metadata endpoint or hosts of the private network. These are the
 * ranges refused unless the operator allows them (WEBHOOK_ALLOW_PRIVATE=true, for local use).
 */
const PRIVATE_RANGES = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 reaches the local host
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  PRIVATE_RANGES.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback (::1) and the deprecated IPv4-compatible addresses
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed by some networks)
] as const) {
  PRIVATE_RANGES.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, also written `::ffff:7f00:1`) stands for. */
function mappedIpv4(ipv6: string): string | undefined {
  // The URL parser writes every IPv6 address in one canonical form, so one pattern covers every spelling.
  const canonical = new URL(`http://[${ipv6}]/`).hostname.slice(1, -1);
  const words = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!words) return undefined;
  const high = parseInt(words[1]!, 16);
  const low = parseInt(words[2]!, 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** Whether `address` (an IP address) is loopback, private, link-local or unspecified, IPv4 or IPv6. */
export function isPrivateAddress(address: string): boolean {
  const ip = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(ip);
  if (family === 4) return PRIVATE_RANGES.check(ip, 'ipv4');
  if (family !== 6) return false;
  const v4 = mappedIpv4(ip);
  if (v4 !== undefined) return PRIVATE_RANGES.check(v4, 'ipv4');
  return PRIVATE_RANGES.check(ip, 'ipv6');
}

/** The URL's host as an IP address when it is one (`[::1]` gives `::1`), otherwise undefined. */
export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? undefined : host;
}

export const PRIVATE_TARGET_RULE = 'webhooks to loopback, private and link-local addresses are refused unless the server runs with WEBHOOK_ALLOW_PRIVATE=true';

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
