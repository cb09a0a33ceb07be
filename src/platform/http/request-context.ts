// Per-request state shared by the stages of a route: who is calling and what the audit record should say.
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.ts';

export interface RequestContext {
  readonly requestId: string;
  readonly startedAt: number;
  /** Correlation id the caller sent in `x-request-id`; logged, never trusted as our id. */
  readonly clientRequestId: string | undefined;
  principal: Principal | undefined;
  /** Route-specific audit facts, filled by the stages (dataset, entity, scopes used, row count...). */
  audit: Record<string, unknown>;
  /** Problem code when the response is an error. */
  errorCode: string | undefined;
  /**
   * Told when the response the route sent could not be committed (its audit record was not written under
   * `fail_closed`) and was replaced by a problem: what the route recorded as answered (an idempotent replay) is
   * undone here. The problem is written once what it returns settles.
   */
  onReplaced?: (() => void | Promise<void>) | undefined;
  /**
   * Run once the response the route sent is committed (its audit records written, or their failure let pass under
   * `availability_first`), before it is written, which waits for it: what the route keeps for later (a response for
   * idempotent replay) is kept only once its record stands. Never run for a response replaced by a problem.
   */
  onCommitted?: (() => Promise<void>) | undefined;
  /**
   * Set when a response enters the response pipeline (headers, audit, commit). A later one, such as a handler
   * finishing after its time-out answer, is dropped there: its route is told through `onReplaced`.
   */
  responding?: boolean;
  /** Set when the watchdog answers the request (504): the handler may still set headers on the same reply. */
  timedOut?: boolean;
  /**
   * Set when the request is answered because its client went away (`http.client_closed`): as for `timedOut`, the
   * handler may still run; nothing it produces reaches anyone.
   */
  clientGone?: boolean;
  /**
   * Set by a route that is answered when its work is done however long it takes (an admin reload, once its caller
   * is authenticated): the request time-out no longer answers it.
   */
  untimed?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext;
  }
}

export function contextOf(request: FastifyRequest): RequestContext {
  return request.ctx;
}
