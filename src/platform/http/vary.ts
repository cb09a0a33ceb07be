// `Vary` lists every request header an answer depends on. CORS names Origin before any route runs, so a route adds
// its own rather than setting the header: a cache keyed without Origin would hand one site's answer to another.
import type { RouteReply } from './route-types.ts';

export function addVary(reply: RouteReply, field: string): RouteReply {
  const current = reply.getHeader('vary');
  if (current === undefined || current === '') return reply.header('vary', field);
  const named = String(current)
    .split(',')
    .map((name) => name.trim().toLowerCase());
  return named.includes(field.toLowerCase()) ? reply : reply.header('vary', `${String(current)}, ${field}`);
}
