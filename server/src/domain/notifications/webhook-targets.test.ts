import { describe, expect, it } from '@jest/globals';
import { isPrivateAddress, publicOnlyLookup } from './webhook-targets.js';

describe('webhook targets', () => {
  it('counts loopback, private, link-local and unspecified addresses as private, IPv4 and IPv6 alike', () => {
    const private_ = ['127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '0.0.0.0', '100.64.0.1',
      '::1', '[::1]', '::', 'fe80::1', 'fd00::1', 'fc00::abcd', '::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:a00:1', '::ffff:192.168.0.1'];
    for (const address of private_) expect([address, isPrivateAddress(address)]).toEqual([address, true]);
    for (const address of ['8.8.8.8', '172.32.0.1', '192.169.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8', 'example.com']) {
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
