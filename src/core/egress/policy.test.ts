import { describe, expect, it } from 'vitest';
import { EgressPolicy, parseEgressAllow, refusalMessage } from './policy.js';

/** The host of a URL as the gate sees it (the URL parser normalises numeric spellings). */
function hostOf(url: string): string {
  const host = new URL(url).hostname;
  return host.startsWith('[') ? host.slice(1, -1) : host;
}

describe('the egress policy', () => {
  const closed = new EgressPolicy([]);

  it.each([
    ['http://127.0.0.1/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://017700000001/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:0:127.0.0.1]/', 'loopback'],
    ['http://[::127.0.0.1]/', 'loopback'],
    ['http://[64:ff9b::127.0.0.1]/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    ['http://10.0.0.1/', 'private'],
    ['http://172.16.5.4/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://[::ffff:192.168.1.1]/', 'private'],
    ['http://100.64.0.1/', 'shared'],
    ['http://[fd12:3456::1]/', 'unique-local'],
    ['http://169.254.1.1/', 'link-local'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://169.254.169.254/', 'metadata'],
    ['http://[fd00:ec2::254]/', 'metadata'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://[ff02::1]/', 'multicast'],
    ['http://255.255.255.255/', 'broadcast'],
    ['http://198.18.0.1/', 'reserved'],
    ['http://192.0.2.1/', 'reserved'],
    ['http://[2001:db8::1]/', 'reserved'],
    ['http://[2002:7f00:1::]/', 'reserved'],
  ])('refuses %s as %s', (url, kind) => {
    expect(closed.check(hostOf(url), 80)).toMatchObject({ kind });
  });

  it.each(['http://8.8.8.8/', 'http://[2606:4700:4700::1111]/', 'http://[64:ff9b::8.8.8.8]/', 'http://[::ffff:8.8.8.8]/'])('allows the public address of %s', (url) => {
    expect(closed.check(hostOf(url), 443)).toBeUndefined();
  });

  it('allows loopback with `loopback`, private networks with `private`, and nothing more', () => {
    const policy = new EgressPolicy(['loopback', 'private']);
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '10.1.2.3', '100.64.1.1', 'fd00::1']) expect(policy.check(address)).toBeUndefined();
    for (const address of ['0.0.0.0', '169.254.1.1', 'fe80::1', '224.0.0.1', '169.254.169.254', '100.100.100.200']) expect(policy.check(address)).toBeDefined();
  });

  it('allows an address or a range as named, cloud metadata only when named as an address', () => {
    const policy = new EgressPolicy(['10.9.0.0/16', '127.0.0.1', '169.254.0.0/16', '::ffff:192.168.7.0/120']);
    expect(policy.check('10.9.200.1')).toBeUndefined();
    expect(policy.check('10.8.0.1')).toMatchObject({ kind: 'private' });
    expect(policy.check('127.0.0.1')).toBeUndefined();
    expect(policy.check('::ffff:127.0.0.1')).toBeUndefined();
    expect(policy.check('127.0.0.2')).toMatchObject({ kind: 'loopback' });
    expect(policy.check('192.168.7.9')).toBeUndefined();
    expect(policy.check('169.254.3.3')).toBeUndefined();
    expect(policy.check('169.254.169.254')).toMatchObject({ kind: 'metadata', allowWith: '--allow-egress 169.254.169.254' });
    expect(new EgressPolicy(['169.254.169.254']).check('169.254.169.254')).toBeUndefined();
  });

  it('refuses its own port on this host whatever is allowed', () => {
    const policy = new EgressPolicy(['loopback', '0.0.0.0']);
    policy.setSelf(4780);
    expect(policy.check('127.0.0.1', 4780)).toMatchObject({ kind: 'self' });
    expect(policy.check('0.0.0.0', 4780)).toMatchObject({ kind: 'self' });
    expect(policy.check('127.0.0.1', 4781)).toBeUndefined();
  });

  it('names --allow-egress in its messages', () => {
    const message = refusalMessage('tool_url http://127.1:9', closed.check('127.0.0.1')!, 'tools.example.test');
    expect(message).toBe(
      'tool_url http://127.1:9 is refused by the egress policy: tools.example.test resolves to 127.0.0.1, which is a loopback address (this host); the operator can allow it with --allow-egress loopback (ORG_EGRESS_ALLOW)',
    );
  });

  it('parses --allow-egress entries and refuses anything else by name', () => {
    expect(parseEgressAllow(['loopback, 10.0.0.0/8', 'fd00::/8', '10.0.0.0/8', '::1'], '--allow-egress')).toEqual(['loopback', '10.0.0.0/8', 'fd00::/8', '::1']);
    for (const bad of ['everything', '10.0.0.0/33', '127.1', '0x7f.1', 'example.com', '10.0.0.0/x']) {
      expect(() => parseEgressAllow([bad], 'ORG_EGRESS_ALLOW')).toThrow(/ORG_EGRESS_ALLOW: ".*" is not loopback, private, an IP address or a CIDR range/);
    }
  });
});
