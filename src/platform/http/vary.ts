// `Vary` lists every request header an answer depends on. CORS names Origin before any route runs, so a route adds
// its own rather than setting the header: a cache keyed without Origin would hand one site's answer to another.
import type { RouteReply } from './route-types.ts';

/** The headers a credential may travel in (read-credential.ts): an answer built for one caller depends on both. */
export const CREDENTIAL_HEADERS = ['Authorization', 'X-Api-Key'] as const;

export function addVary(reply: RouteReply, ...fields: readonly string[]): RouteReply {
  for (const field of fields) {
    const current = reply.getHeader('vary');
    if (current === undefined || current === '') {
      reply.header('vary', field);
      continue;
    }
    const named = String(current)
      .split(',')
      .map((name) => name.trim().toLowerCase());
    if (!named.includes(field.toLowerCase())) reply.header('vary', `${String(current)}, ${field}`);
  }
  return reply;
}
