// What a response replaced by a problem (a failed commit) keeps of its headers: only those about the exchange.
import type { RouteReply } from './route-types.ts';
import { SECURITY_HEADERS } from './security-headers.ts';

/** Headers a response replaced by a problem keeps (with the CORS ones): they describe the exchange, not the result. */
const KEPT_ON_REPLACEMENT: ReadonlySet<string> = new Set([
  ...Object.keys(SECURITY_HEADERS),
  'x-request-id',
  'vary',
  'connection',
]);

/** Removes the validator, the next-page cursor and whatever else described the result the client does not get. */
export function clearResultHeaders(reply: RouteReply): void {
  for (const name of Object.keys(reply.getHeaders())) {
    if (!KEPT_ON_REPLACEMENT.has(name) && !name.startsWith('access-control-')) reply.removeHeader(name);
  }
}
