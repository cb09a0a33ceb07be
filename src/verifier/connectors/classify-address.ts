// SSRF guard: classifies an IP address and decides whether a source connection may reach it.
import { BlockList, isIP } from 'node:net';
import { unmapIpv4 } from '../../platform/net/ipv4-mapped.ts';

export type AddressClass = 'public' | 'loopback' | 'private' | 'link_local' | 'metadata' | 'reserved';

export interface AddressPolicy {
  readonly allow_insecure_localhost: boolean;
  readonly allow_insecure_private_network: boolean;
  readonly allow_link_local: boolean;
}

function blockList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

// Cloud instance-metadata and credential endpoints (AWS, GCP, Azure, Oracle: 169.254.169.254; AWS, GCP, Oracle and
// Akamai IPv6; AWS ECS and EKS Pod Identity, IPv4 and IPv6; Alibaba; Scaleway IPv6; Azure's WireServer, a public
// address that serves the instance's certificates). Those in private or public ranges stay refused without
// allow_link_local.
const METADATA = blockList([
  '169.254.169.254',
  '169.254.170.2',
  '169.254.170.23',
  'fd00:ec2::254',
  'fd20:ce::254',
  'fd00:c1::a9fe:a9fe',
  'fd00:a9fe:a9fe::1',
  'fd00:ec2::23',
  '100.100.100.200',
  'fd00:42::42',
  '168.63.129.16',
]);
const LOOPBACK = blockList(['127.0.0.0/8', '::1/128']);
const LINK_LOCAL = blockList(['169.254.0.0/16', 'fe80::/10']);
// Benchmarking nets (RFC 2544, RFC 5180) are not routed on the Internet and serve as internal networks in labs
// and some clouds: reached only as private ones.
const PRIVATE = blockList([
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  'fc00::/7',
  '198.18.0.0/15',
  '2001:2::/48',
]);
const RESERVED = blockList([
  '0.0.0.0/8',
  // IANA special-purpose blocks no source lives on: IETF protocol assignments (DS-Lite, NAT64 discovery), the
  // documentation nets, the retired 6to4 relay anycast, ORCHID identifiers.
  '192.0.0.0/24',
  '192.0.2.0/24',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '192.88.99.0/24',
  '3fff::/20',
  '2001:10::/28',
  '2001:20::/28',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '::/128',
  'ff00::/8',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '2001:db8::/32',
  // Forms that carry an IPv4 address for a translator or tunnel to reach: IPv4-compatible (deprecated, `::a.b.c.d`),
  // IPv4-translated (SIIT, `::ffff:0:a.b.c.d`), 6to4 (`2002:AABB:CCDD::`), Teredo; and discard-only, site-local.
  '::/96',
  '::ffff:0:0:0/96',
  '2002::/16',
  '2001::/32',
  '100::/64',
  'fec0::/10',
]);

export function classifyAddress(address: string): AddressClass {
  // IPv4-mapped IPv6 is judged as the IPv4 address it carries.
  const ip = unmapIpv4(address);
  const family = isIP(ip);
  if (family === 0) return 'reserved';
  const type = family === 6 ? 'ipv6' : 'ipv4';
  if (METADATA.check(ip, type)) return 'metadata';
  if (LOOPBACK.check(ip, type)) return 'loopback';
  if (LINK_LOCAL.check(ip, type)) return 'link_local';
  if (PRIVATE.check(ip, type)) return 'private';
  if (RESERVED.check(ip, type)) return 'reserved';
  return 'public';
}

/** Undefined when an address of this kind may be reached under the policy, else the reason it may not. */
function kindDenial(kind: AddressClass, policy: AddressPolicy): string | undefined {
  switch (kind) {
    case 'public':
      return undefined;
    case 'loopback':
      return policy.allow_insecure_localhost ? undefined : 'loopback addresses need allow_insecure_localhost';
    case 'private':
      return policy.allow_insecure_private_network
        ? undefined
        : 'private addresses need allow_insecure_private_network';
    case 'link_local':
    case 'metadata':
      return policy.allow_link_local
        ? undefined
        : `${kind.replace('_', '-')} addresses need allow_link_local`;
    default:
      return 'reserved, special-purpose (documentation, protocol assignments), multicast or unspecified addresses are never reached';
  }
}

/**
 * Undefined when a connection over `protocol` (`http:` or `https:`) may reach the address, else why not. Plain
 * http carries the bearer token and the lookup values in cleartext, so it never reaches a public address: only
 * the local ones the flags allow (loopback, private, and link-local with allow_link_local).
 */
export function connectDenial(address: string, protocol: string, policy: AddressPolicy): string | undefined {
  const kind = classifyAddress(address);
  const denial = kindDenial(kind, policy);
  if (denial !== undefined || protocol !== 'http:') return denial;
  return kind === 'public'
    ? 'http never reaches a public address: the token and the lookup values would cross it in cleartext (use https)'
    : undefined;
}

/** The scheme rule: https always; http only where an insecure flag allows it (and see `connectDenial`). */
export function schemeDenial(url: URL, policy: AddressPolicy): string | undefined {
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return `scheme ${url.protocol} is not supported`;
  return policy.allow_insecure_localhost || policy.allow_insecure_private_network
    ? undefined
    : 'http needs allow_insecure_localhost or allow_insecure_private_network (use https)';
}

/** Host names that resolve to metadata endpoints without an IP literal. */
export function isMetadataHostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'metadata.google.internal' || name === 'metadata' || name === 'instance-data.ec2.internal';
}
