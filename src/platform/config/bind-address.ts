// A listen address, `host:port` (IPv6 hosts in brackets), as the config's `bind` keys and `--bind` take it.
import { isIPv4, isIPv6 } from 'node:net';
import { z } from 'zod';
import { unmapIpv4 } from '../net/ipv4-mapped.ts';

const BIND = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * Whether `text` is host:port with a port from 0 to 65535 (0: any free port) and a host a listener can be opened on:
 * an IPv6 address in brackets, an IPv4 address or a host name. Checked here, `[:]` or `999.1.1.1` would pass
 * `config check` and fail only when the service starts.
 */
export function isBindAddress(text: string): boolean {
  const match = BIND.exec(text);
  if (!match || Number(match[3]) > 65_535) return false;
  const [, ipv6, host] = match;
  if (ipv6 !== undefined) return isIPv6(ipv6);
  return isHost(host as string);
}

function isHost(host: string): boolean {
  if (/^[\d.]+$/.test(host)) return isIPv4(host);
  return host.length <= 253 && host.split('.').every((label) => LABEL.test(label));
}

/**
 * Whether two listen addresses may be the same listener: one port (not 0, which asks for a free one each time) on
 * hosts that are the same address, or overlap (a wildcard takes the port on every address; `localhost` is both
 * loopback addresses). Two listeners there fail at start, or, for `bind` and `admin_bind`, would be one.
 */
export function bindsMayClash(a: string, b: string): boolean {
  const first = BIND.exec(a);
  const second = BIND.exec(b);
  if (!first || !second || first[3] !== second[3] || Number(first[3]) === 0) return false;
  const hostA = hostOf(first);
  const hostB = hostOf(second);
  return (
    hostA === hostB || WILDCARD.has(hostA) || WILDCARD.has(hostB) || (isLoopback(hostA) && isLoopback(hostB))
  );
}

const WILDCARD = new Set(['0.0.0.0', '::']);

/** The host in one spelling: an IPv6 address compressed and lowercased, an IPv4-mapped one as its IPv4 address. */
function hostOf(match: RegExpExecArray): string {
  const ipv6 = match[1];
  if (ipv6 === undefined || !isIPv6(ipv6)) return (match[2] ?? ipv6 ?? '').toLowerCase();
  let canonical: string;
  try {
    canonical = new URL(`http://[${ipv6}]/`).hostname.slice(1, -1);
  } catch {
    // A zone id (`fe80::1%eth0`) is no URL host: compared as written.
    return ipv6.toLowerCase();
  }
  return unmapIpv4(canonical);
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

export function bindAddressSchema(example: string) {
  return z
    .string()
    .refine(
      isBindAddress,
      `must be host:port with a port from 0 to 65535 (an IPv6 host in brackets: [::1]:8080), for example ${example}`,
    );
}
