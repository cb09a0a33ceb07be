// `server.trust_proxy` of the relay and the verifier: each trusted proxy is checked at load, as the server compiles it.
import { isIP } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';
import { z } from 'zod';
import type { ConfigIssue } from './config-error.ts';

const NAMED_RANGES: ReadonlySet<string> = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Whether @fastify/proxy-addr (what Fastify and the fast lane hand the list to) accepts `entry`: an IPv4 or IPv6
 * address, either with a `/prefix` (or an IPv4 netmask) in range, or `loopback`, `linklocal` or `uniquelocal`.
 * Asking the library itself keeps config check and serve in agreement. Its address parser also takes what no
 * operator means as an address: `010.0.0.0/8` is octal (8.0.0.0/8, a public range), `1` is 0.0.0.1 (not a hop
 * count), `127.1` and `0x7f.0.0.1` are 127.0.0.1. Only the usual written form (what `isIP` takes, without a zone)
 * and a decimal prefix are accepted, so the range trusted is the one the text says.
 */
export function isTrustedProxy(entry: string): boolean {
  if (!NAMED_RANGES.has(entry) && !isPlainRange(entry)) return false;
  try {
    proxyAddr.compile([entry]);
    return true;
  } catch {
    return false;
  }
}

function isPlainRange(entry: string): boolean {
  const slash = entry.indexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  if (address.includes('%') || isIP(address) === 0) return false;
  if (slash === -1) return true;
  const range = entry.slice(slash + 1);
  return /^(0|[1-9][0-9]{0,2})$/.test(range) || isIP(range) === 4;
}

// The message never quotes the entry: like any value it may have come from an expanded variable.
// At most 128 characters: the longest address with a prefix or netmask is about 50.
const trustedProxy = z
  .string()
  .max(128)
  .refine(
    isTrustedProxy,
    'must be an IP address, a CIDR range with a valid prefix length (10.0.0.0/8, fd00::/8), or loopback, linklocal or uniquelocal; an IPv4 address is four decimal numbers without leading zeros',
  );

export function trustProxySchema() {
  return z
    .strictObject({
      enabled: z.boolean().default(false),
      trusted_proxies: z
        .array(trustedProxy)
        .max(1000)
        .default([])
        .describe(
          'IP addresses or CIDR ranges (`10.0.0.0/8`, `fd00::/8`), or `loopback`, `linklocal`, `uniquelocal`.',
        ),
    })
    .default({ enabled: false, trusted_proxies: [] });
}

/**
 * The cross-field rule of both services: enabled with no proxy listed would trust nobody while the operator believes
 * the forwarded address is the one recorded.
 */
export function checkTrustProxyBlock(proxy: {
  readonly enabled: boolean;
  readonly trusted_proxies: readonly string[];
}): ConfigIssue[] {
  if (!proxy.enabled || proxy.trusted_proxies.length > 0) return [];
  return [
    {
      path: 'server.trust_proxy.trusted_proxies',
      code: 'config.validation_error',
      message: 'list the proxies to trust when trust_proxy is enabled',
    },
  ];
}
