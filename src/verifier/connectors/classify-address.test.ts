import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connectionConfig, issuesAt } from '../config/verifier-config-test-support.ts';
import { type AddressPolicy, connectDenial, isMetadataHostName } from './classify-address.ts';

const BOTH: AddressPolicy = {
  allow_insecure_localhost: true,
  allow_insecure_private_network: true,
  allow_link_local: false,
};
const ALL: AddressPolicy = { ...BOTH, allow_link_local: true };

describe('which addresses a connection may reach over http and https', () => {
  const cases: [string, string, Partial<AddressPolicy>, boolean][] = [
    // address, protocol, policy overrides, allowed
    ['127.0.0.1', 'http:', {}, true],
    ['::1', 'http:', {}, true],
    ['127.0.0.1', 'http:', { allow_insecure_localhost: false }, false],
    ['10.1.2.3', 'http:', {}, true],
    ['fd12::1', 'http:', {}, true],
    ['10.1.2.3', 'http:', { allow_insecure_private_network: false }, false],
    ['93.184.215.14', 'http:', {}, false],
    ['::ffff:93.184.215.14', 'http:', {}, false],
    ['2606:4700::1111', 'http:', {}, false],
    // Link-local traffic never leaves the link: with allow_link_local (and an insecure flag) http may reach it.
    ['169.254.10.1', 'http:', { allow_link_local: true }, true],
    ['169.254.10.1', 'http:', {}, false],
    ['93.184.215.14', 'https:', {}, true],
    [
      '93.184.215.14',
      'https:',
      { allow_insecure_localhost: false, allow_insecure_private_network: false },
      true,
    ],
    ['127.0.0.1', 'https:', { allow_insecure_localhost: false }, false],
    ['169.254.10.1', 'https:', { allow_link_local: true }, true],
    // Cloud credential endpoints inside private ranges stay refused under allow_insecure_private_network.
    ['fd00:ec2::254', 'https:', {}, false],
    ['fd00:ec2::23', 'https:', {}, false],
    ['fd00:42::42', 'https:', {}, false],
    ['100.100.100.200', 'https:', {}, false],
    ['fd00:ec2::23', 'https:', { allow_link_local: true }, true],
    // Google Cloud's metadata server over IPv6 lies in the ULA range too.
    ['fd20:ce::254', 'http:', {}, false],
    ['fd20:ce::254', 'https:', { allow_link_local: true }, true],
    ['fd20:ce::253', 'http:', {}, true],
    // Oracle Cloud's and Akamai (Linode)'s metadata servers over IPv6 too; Azure's WireServer, which hands out the
    // instance's certificates and extension settings, sits at a public address inside every virtual network.
    ['fd00:c1::a9fe:a9fe', 'https:', {}, false],
    ['fd00:a9fe:a9fe::1', 'http:', {}, false],
    ['fd00:a9fe:a9fe::1', 'https:', { allow_link_local: true }, true],
    ['168.63.129.16', 'https:', {}, false],
    ['::ffff:168.63.129.16', 'https:', {}, false],
    ['168.63.129.17', 'https:', {}, true],
    ['::ffff:169.254.169.254', 'https:', {}, false],
    ['::ffff:a9fe:a9fe', 'https:', {}, false],
    // NAT64 prefixes carry an IPv4 address a translator reaches: well-known and local-use (RFC 8215) alike.
    ['64:ff9b::a9fe:a9fe', 'https:', {}, false],
    ['64:ff9b:1::a9fe:a9fe', 'https:', {}, false],
    // So do the IPv4-compatible, IPv4-translated, 6to4 and Teredo forms; the loopback stays loopback.
    ['::a9fe:a9fe', 'https:', {}, false],
    ['::169.254.169.254', 'https:', { allow_link_local: true }, false],
    ['::ffff:0:a9fe:a9fe', 'https:', {}, false],
    ['2002:a9fe:a9fe::1', 'https:', {}, false],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'https:', {}, false],
    ['fec0::1', 'https:', {}, false],
    ['::1', 'https:', { allow_insecure_localhost: true }, true],
    ['2001:db9::1', 'https:', {}, true],
    // Every private range needs its flag, over https too; the edges of 172.16.0.0/12 and 100.64.0.0/10 are public.
    ['172.16.0.5', 'https:', { allow_insecure_private_network: false }, false],
    ['172.31.255.254', 'http:', {}, true],
    ['172.32.0.1', 'http:', {}, false],
    ['192.168.1.1', 'https:', { allow_insecure_private_network: false }, false],
    ['100.64.0.1', 'https:', { allow_insecure_private_network: false }, false],
    ['100.128.0.1', 'http:', {}, false],
    ['fe80::1', 'https:', {}, false],
    // A resolver may report a link-local address with its zone: still link-local.
    ['fe80::1%eth0', 'https:', {}, false],
    ['fe80::1%2', 'http:', { allow_link_local: true }, true],
    ['::ffff:169.254.169.254%1', 'https:', {}, false],
    ['169.254.169.254', 'https:', {}, false],
    // Unspecified (0.0.0.0 reaches this host), multicast and future-use addresses: never, whatever the flags.
    ['0.0.0.0', 'https:', ALL, false],
    ['0.1.2.3', 'https:', ALL, false],
    ['224.0.0.1', 'https:', ALL, false],
    ['240.0.0.1', 'https:', ALL, false],
    ['::', 'https:', ALL, false],
    // Special-purpose blocks: documentation, IETF protocol assignments, 6to4 relays, ORCHID; never reached.
    ['192.0.2.1', 'https:', ALL, false],
    ['198.51.100.7', 'https:', ALL, false],
    ['203.0.113.10', 'https:', ALL, false],
    ['::ffff:203.0.113.10', 'https:', ALL, false],
    ['192.0.0.170', 'https:', ALL, false],
    ['192.88.99.1', 'https:', ALL, false],
    ['3fff::1', 'https:', ALL, false],
    ['2001:10::1', 'https:', ALL, false],
    ['2001:2f::1', 'https:', ALL, false],
    // Benchmarking nets are internal: they need allow_insecure_private_network, and may then take http.
    ['198.18.0.1', 'https:', { allow_insecure_private_network: false }, false],
    ['198.19.255.254', 'http:', {}, true],
    ['198.20.0.1', 'http:', {}, false],
    ['2001:2::1', 'https:', { allow_insecure_private_network: false }, false],
    ['2001:2::1', 'http:', {}, true],
    ['192.0.1.255', 'https:', ALL, true],
    ['192.0.3.0', 'https:', ALL, true],
    ['ff02::1', 'https:', ALL, false],
  ];
  for (const [address, protocol, overrides, allowed] of cases) {
    it(`${protocol}//${address} ${JSON.stringify(overrides)}: ${allowed ? 'allowed' : 'refused'}`, () => {
      assert.equal(connectDenial(address, protocol, { ...BOTH, ...overrides }) === undefined, allowed);
    });
  }

  it('says why plain http may not reach a public address', () => {
    assert.match(
      connectDenial('93.184.215.14', 'http:', BOTH) ?? '',
      /http never reaches a public address: the token and the lookup values would cross it in cleartext \(use https\)/,
    );
  });
});

describe('cloud metadata host names', () => {
  it('knows each provider name, in any case and written fully qualified', () => {
    for (const name of [
      'metadata.google.internal',
      'METADATA.Google.Internal',
      'metadata.google.internal.',
      'metadata',
      'instance-data.ec2.internal',
      'instance-data.ec2.internal.',
    ])
      assert.equal(isMetadataHostName(name), true, name);
    for (const name of ['relay.internal', 'metadata.example.org', 'google.internal', 'metadata..'])
      assert.equal(isMetadataHostName(name), false, name);
  });
});

describe('a source base URL at config load', () => {
  const baseUrlIssues = (connection: string): string[] =>
    issuesAt(
      connectionConfig(`${connection}, token_env: RELAY_TOKEN`),
      'evidence.source_connections.relay.base_url',
    ).map((issue) => issue.message);
  const FLAGS = 'allow_insecure_localhost: true, allow_insecure_private_network: true';

  it('refuses plain http to a public IP literal, whatever the insecure flags', () => {
    for (const url of ['http://93.184.215.14:8080', 'http://[2606:4700::1111]']) {
      assert.deepEqual(baseUrlIssues(`base_url: "${url}", ${FLAGS}`), [
        'http never reaches a public address: the token and the lookup values would cross it in cleartext (use https)',
      ]);
    }
  });

  it('accepts https to a public address, and http to the local address its flag allows', () => {
    assert.deepEqual(baseUrlIssues('base_url: "https://93.184.215.14"'), []);
    assert.deepEqual(baseUrlIssues('base_url: "http://127.0.0.1:4242", allow_insecure_localhost: true'), []);
    assert.deepEqual(
      baseUrlIssues('base_url: "http://10.0.0.5:4242", allow_insecure_private_network: true'),
      [],
    );
    // A documentation address is never a source, whatever the scheme and flags.
    assert.deepEqual(baseUrlIssues('base_url: "https://203.0.113.10"'), [
      'reserved, special-purpose (documentation, protocol assignments), multicast or unspecified addresses are never reached',
    ]);
    // A name is judged by what it resolves to, at each connect.
    assert.deepEqual(baseUrlIssues(`base_url: "http://relay.internal:4242", ${FLAGS}`), []);
  });

  it('refuses the metadata address however the URL spells it', () => {
    for (const host of [
      '2852039166',
      '0251.0376.0251.0376',
      '0xa9fea9fe',
      '169.254.43518',
      '169.16689662',
      '169.254.169.254.',
      '[::ffff:169.254.169.254]',
      '[::ffff:a9fe:a9fe]',
      '[0:0:0:0:0:ffff:a9fe:a9fe]',
      '[fd00:ec2::254]',
    ]) {
      assert.deepEqual(
        baseUrlIssues(`base_url: "https://${host}", ${FLAGS}`),
        ['metadata addresses need allow_link_local'],
        host,
      );
    }
    // A link-local address with a zone is no URL at all.
    assert.deepEqual(baseUrlIssues('base_url: "https://[fe80::1%25eth0]"'), ['must be an absolute URL']);
    for (const host of ['0', '0.0.0.0', '[::]']) {
      assert.match(
        baseUrlIssues(`base_url: "https://${host}"`)[0] ?? '',
        /unspecified addresses are never reached/,
      );
    }
  });

  it('refuses credentials in the URL without quoting them', () => {
    for (const url of [
      'https://user:s3cr3t@relay.example',
      'https://:s3cr3t@relay.example',
      'https://s3cr3t@relay.example',
    ]) {
      const issues = baseUrlIssues(`base_url: "${url}"`);
      assert.deepEqual(issues, ['must not carry a query, fragment or credentials'], url);
    }
    // Nor when the URL is refused for another reason.
    const bad = baseUrlIssues('base_url: "https://user:s3cr3t@relay.example:99999"');
    assert.deepEqual(bad, ['must be an absolute URL']);
  });
});
