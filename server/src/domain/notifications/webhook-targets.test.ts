import { describe, expect, it } from '@jest/globals';
import { isPrivateAddress, publicOnlyLookup } from './webhook-targets.js';

describe('webhook targets', () => {
  it('counts loopback, private, link-local, unspecified and every other special-purpose range as private, IPv4 and IPv6 alike', () => {
    const private_ = ['127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '0.0.0.0', '100.64.0.1',
      '::1', '[::1]', '::', 'fe80::1', 'fd00::1', 'fc00::abcd', '::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:a00:1', '::ffff:192.168.0.1',
      // Translation prefixes reach IPv4 hosts (NAT64, 6to4, Teredo, IPv4-mapped and -translated): refused whatever they embed.
      '64:ff9b::808:808', '64:ff9b::7f00:1', '2002:7f00:1::1', '2001::1', '::ffff:8.8.8.8', '::ffff:0:8.8.8.8',
      // Benchmarking, documentation, multicast, broadcast and reserved ranges.
      '198.18.0.1', '198.19.255.255', '192.0.2.1', '2001:db8::1', '224.0.0.1', '255.255.255.255', '240.0.0.1', 'ff02::1'];
    for (const address of private_) expect([address, isPrivateAddress(address)]).toEqual([address, true]);
    for (const address of ['8.8.8.8', '172.32.0.1', '192.169.0.1', '198.20.0.1', '2001:4860:4860::8888', '2606:4700::1111', 'example.com']) {
      expect([address, isPrivateAddress(address)]).toEqual([address, false]);
    }
  });

  it('refuses a name that resolves to a private address, so that the connection never reaches it', async () => {
    const looked = await new Promise<{ error: NodeJS.ErrnoException | null }>((resolve) =>
      publicOnlyLookup('localhost', { all: true }, (error) => resolve({ error })),
    );
    expect(looked.error?.message).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a private address: .*WEBHOOK_ALLOW_PRIVATE=true/);
  });
});
