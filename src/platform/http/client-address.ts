// The client address recorded for a request (the audit's `remote_addr`), the same on both lanes. Behind trusted
// proxies it is the nearest X-Forwarded-For entry that is not itself a trusted proxy. proxy-addr returns that entry
// whatever it holds, so a caller that is itself inside a trusted range (an internal client in 10.0.0.0/8) could put
// any text there, up to the header limit, and have it recorded as its address. Only an IP address in its usual
// written form counts: the first entry that is not one ends the walk, and the last trusted hop is the client.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';
import type { RouteRequest } from './route-types.ts';

/** Whether an address (or CIDR) is a trusted proxy, the `hop`-th from the socket. */
export type TrustedProxies = (address: string, hop: number) => boolean;

export function compileTrustedProxies(list: false | readonly string[]): TrustedProxies | undefined {
  return list === false ? undefined : proxyAddr.compile([...list]);
}

/**
 * The address of the client: the socket's peer, or when that is a trusted proxy, the nearest forwarded entry that
 * is not one, provided every entry up to it is a plain IP address.
 */
export function clientAddress(raw: IncomingMessage, trusted: TrustedProxies | undefined): string {
  const peer = raw.socket.remoteAddress ?? '';
  if (trusted === undefined || raw.headers['x-forwarded-for'] === undefined) return peer;
  // The socket's address first, then the forwarded ones from the nearest, cut after the first untrusted.
  const hops = proxyAddr.all(raw, trusted);
  let address = peer;
  for (let hop = 1; hop < hops.length; hop++) {
    const entry = hops[hop] as string;
    if (!isPlainIp(entry)) break;
    address = entry;
  }
  return address;
}

/**
 * Sets the request's `ip` to its client address, on either lane. Fastify's own getter returns the forwarded entry
 * unchecked; an own property on the request takes its place.
 */
export function pinClientAddress(request: RouteRequest, trusted: TrustedProxies | undefined): void {
  if (trusted === undefined) return;
  Object.defineProperty(request, 'ip', {
    value: clientAddress(request.raw, trusted),
    enumerable: true,
    configurable: true,
  });
}

/** Dotted IPv4 or IPv6 text without a zone: a zone names an interface of the host that wrote it, not an address. */
function isPlainIp(entry: string): boolean {
  return !entry.includes('%') && isIP(entry) !== 0;
}
