// The request and reply surface our route handlers may use. Fastify's request and reply satisfy it, and so do the
// fast lane's (fast-lane.ts), so a handler written against these types runs unchanged on either path.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { RequestContext } from './request-context.ts';

export interface RouteRequest {
  readonly id: string;
  readonly method: string;
  /** The raw request target: path and query string, as received. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** Node's request, for what the parsed headers lose (the order and repetition of raw headers). */
  readonly raw: IncomingMessage;
  /** Decoded path parameters of the matched route. */
  readonly params: unknown;
  /** The parsed query string: a string per name, an array for a repeated name. */
  readonly query: unknown;
  /** The parsed JSON body of a POST route (undefined on GET). */
  readonly body?: unknown;
  /** The client address (the forwarded one when the peer is a trusted proxy). */
  readonly ip: string;
  /** The connection the request arrived on. */
  readonly socket: Socket;
  readonly routeOptions: { readonly url?: string | undefined };
  ctx: RequestContext;
}

export interface RouteReply {
  readonly statusCode: number;
  readonly sent: boolean;
  code(statusCode: number): RouteReply;
  header(name: string, value: string | number): RouteReply;
  hasHeader(name: string): boolean;
  getHeader(name: string): string | number | string[] | undefined;
  /** Every header set so far, by lower-case name. */
  getHeaders(): Record<string, unknown>;
  removeHeader(name: string): RouteReply;
  /** Sends the response; a string or Buffer body, or none. */
  send(payload?: string | Buffer): RouteReply;
}

/** A route handler settles when it has called `reply.send`, or rejects with a Problem. */
export type RouteHandler = (request: RouteRequest, reply: RouteReply) => unknown;
