// Listen addresses as `server.bind`, `server.admin_bind` and `--bind` take them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bindsMayClash, isBindAddress } from './bind-address.ts';

describe('isBindAddress', () => {
  it('accepts IPv4 and IPv6 addresses, host names and ports from 0 to 65535', () => {
    for (const bind of [
      '127.0.0.1:4242',
      '0.0.0.0:0',
      '[::]:65535',
      '[::1]:8081',
      '[::ffff:127.0.0.1]:8081',
      '[fe80::1%eth0]:8081',
      'localhost:4242',
      'relay-1.internal.example:443',
    ]) {
      assert.ok(isBindAddress(bind), bind);
    }
  });

  it('refuses what no listener can be opened on, rather than failing only at serve', () => {
    for (const bind of [
      '127.0.0.1:65536',
      '127.0.0.1',
      '::1:4242',
      '[:]:4242',
      '[1:2:3]:4242',
      '[127.0.0.1]:4242',
      '999.1.1.1:4242',
      '10.0.0:4242',
      '-relay:4242',
      'relay..example:4242',
      `${'a'.repeat(64)}.example:4242`,
      ':4242',
    ]) {
      assert.ok(!isBindAddress(bind), bind);
    }
  });
});

describe('bindsMayClash', () => {
  it('finds one port on the same, a wildcard or two loopback addresses', () => {
    for (const [a, b] of [
      ['127.0.0.1:4242', '127.0.0.1:4242'],
      ['LOCALHOST:4242', 'localhost:4242'],
      ['0.0.0.0:4242', '127.0.0.1:4242'],
      ['10.0.0.5:4242', '[::]:4242'],
      ['localhost:4242', '127.0.0.1:4242'],
      ['[::1]:4242', '127.0.0.2:4242'],
      // One IPv6 address has many spellings.
      ['[0::0]:4242', '127.0.0.1:4242'],
      ['[0:0::0:0]:4242', '10.0.0.5:4242'],
      ['[::ffff:127.0.0.1]:4242', '127.0.0.1:4242'],
      ['[::FFFF:7F00:1]:4242', 'localhost:4242'],
      ['[0000::0001]:4242', '[::1]:4242'],
      ['[2001:DB8::1]:4242', '[2001:db8:0:0::1]:4242'],
      ['[::ffff:10.0.0.5]:4242', '10.0.0.5:4242'],
    ]) {
      assert.ok(bindsMayClash(a as string, b as string), `${a} ${b}`);
      assert.ok(bindsMayClash(b as string, a as string), `${b} ${a}`);
    }
  });

  it('lets distinct addresses or ports, and two requests for any free port, be', () => {
    for (const [a, b] of [
      ['127.0.0.1:4242', '127.0.0.1:4243'],
      ['10.0.0.5:4242', '127.0.0.1:4242'],
      ['relay.internal:4242', '127.0.0.1:4242'],
      ['127.0.0.1:0', '127.0.0.1:0'],
      ['0.0.0.0:0', '127.0.0.1:0'],
    ]) {
      assert.ok(!bindsMayClash(a as string, b as string), `${a} ${b}`);
    }
  });
});
