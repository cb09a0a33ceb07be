// Undoing what a handler still running sets on a reply that was answered early (time-out, client gone).
import type { RouteReply } from './route-types.ts';

/** The reply's status and headers as they are now; the function puts them back. */
export function frozenHead(reply: RouteReply): () => void {
  const status = reply.statusCode;
  const headers = reply.getHeaders();
  return () => {
    for (const name of Object.keys(reply.getHeaders())) if (!(name in headers)) reply.removeHeader(name);
    for (const [name, value] of Object.entries(headers)) {
      if (value !== undefined && value !== null) reply.header(name, value as string | number);
    }
    reply.code(status);
  };
}
