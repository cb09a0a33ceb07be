// `server.trust_proxy` of the relay and the verifier: each trusted proxy is checked at load, as the server compiles it.
import proxyAddr from '@fastify/proxy-addr';
import { z } from 'zod';

/**
 * Whether @fastify/proxy-addr (what Fastify and the fast lane hand the list to) accepts `entry`: an IPv4 or IPv6
 * address, either with a `/prefix` (or an IPv4 netmask) in range, or `loopback`, `linklocal` or `uniquelocal`.
 * Asking the library itself keeps config check and serve in agreement.
 */
export function isTrustedProxy(entry: string): boolean {
  try {
    proxyAddr.compile([entry]);
    return true;
  } catch {
    return false;
  }
}

// The message never quotes the entry: like any value it may have come from an expanded variable.
// At most 128 characters: the longest address with a prefix or netmask is about 50.
const trustedProxy = z
  .string()
  .max(128)
  .refine(
    isTrustedProxy,
    'must be an IP address, a CIDR range with a valid prefix length (10.0.0.0/8, fd00::/8), or loopback, linklocal or uniquelocal',
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
