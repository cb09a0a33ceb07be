// What a request's own headers ask of its answer, judged the same way on both lanes: the caller's correlation id as
// it may be recorded and forwarded, and whether the connection must close because the body is still arriving.
import type { ServerResponse } from 'node:http';
import type { RouteReply, RouteRequest } from './route-types.ts';

/** Printable ASCII only: the value is recorded and sent on to sources as a header. */
const CORRELATION_ID = /^[\x20-\x7e]+$/;

/**
 * The caller's `x-request-id`, cut to 128 characters, when it is printable ASCII; anything else (empty, a tab,
 * bytes outside ASCII) is dropped rather than recorded and forwarded upstream as the caller's correlation id.
 */
export function correlationId(value: string | string[] | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const bounded = value.length > 128 ? value.slice(0, 128) : value;
  return CORRELATION_ID.test(bounded) ? bounded : undefined;
}

/**
 * A response written while its request's body is still arriving (a 504 for a body that trickles in, a 413, a GET
 * sent with a body) closes its connection. Kept alive, node:http would read the rest at the client's pace, holding
 * the connection far beyond the request timeout, and then answer the same request again at its own deadline.
 * Returns `payload`.
 */
export function closingIfBodyPending<T>(request: RouteRequest, reply: RouteReply, payload: T): T {
  const raw = request.raw;
  if (raw.complete) return payload;
  const headers = raw.headers;
  const length = headers['content-length'];
  if (headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')) {
    reply.header('connection', 'close');
  }
  return payload;
}

/**
 * Fastify closes the connection after any body it could not parse, in case more of it is coming. One read in full
 * leaves nothing to come (the lane keeps such connections too): closed, it would drop the answers to the requests
 * pipelined after it, though they ran and were audited. A body still arriving closes it regardless. The header is
 * set to what Node would write, never removed: a removed Connection header keeps Node from writing its own, so a
 * close the client asked for, or an HTTP/1.0 keep-alive, would go unannounced.
 */
export function keepConnectionAfterReadBody(
  request: RouteRequest,
  reply: RouteReply & { raw: ServerResponse },
): void {
  if (!request.raw.complete || reply.getHeader('connection') === undefined) return;
  reply.header('connection', reply.raw.shouldKeepAlive ? 'keep-alive' : 'close');
}
