// Server bootstrap shared by every service: request ids, limits, security headers, CORS and the error boundary.
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import { platformProblem } from '../problem/platform-problems.ts';
import type { Problem } from '../problem/problem.ts';
import { PROBLEM_MEDIA_TYPE, renderProblemJson } from '../problem/render-problem-json.ts';
import type { Random } from '../random.ts';
import { afterCommit } from './after-commit.ts';
import { refuseUnroutedUploads, unansweredProblem, unroutedBodyProblem } from './allowed-methods.ts';
import { answerClientError } from './answer-client-error.ts';
import { clearResultHeaders } from './clear-result-headers.ts';
import { compileTrustedProxies, pinClientAddress } from './client-address.ts';
import { limitConnections } from './connection-limit.ts';
import { cutStalledAnswers } from './cut-stalled-answers.ts';
import { drainDeadlineMs, drainOnClose, type InFlightResponses, warnDrainCut } from './drain-server.ts';
import { createFastLane, type FastLane } from './fast-lane.ts';
import { frozenHead } from './frozen-head.ts';
import { dropNotModifiedLength } from './head-not-modified.ts';
import { registerOptionsRoute } from './options-requests.ts';
import { isWellFormedQuery } from './query-encoding.ts';
import { splitRepeatedHeaders } from './repeated-headers.ts';
import type { RequestContext } from './request-context.ts';
import { closingIfBodyPending, correlationId, keepConnectionAfterReadBody } from './request-hygiene.ts';
import { createRequestWatchdog } from './request-watchdog.ts';
import type { RouteReply, RouteRequest } from './route-types.ts';
import { DEFAULT_CACHE_CONTROL, SECURITY_HEADERS } from './security-headers.ts';
import { renderProblemBody, sendProblem } from './send-problem.ts';
import { toProblem } from './to-problem.ts';
import { answerUnroutableRequests, refuseBadHost } from './unroutable-requests.ts';

export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_URI_BYTES = 8 * 1024;

/** Request headers a listed origin may send to every service, and response headers its scripts may read. */
const CORS_ALLOW_HEADERS = [
  'authorization',
  'x-api-key',
  'data-purpose',
  'content-type',
  'if-none-match',
  'x-request-id',
  'accept',
];
const CORS_EXPOSE_HEADERS = ['etag', 'link', 'x-request-id', 'retry-after'];

/** A service's own CORS headers, besides the shared ones. */
export interface CorsHeaders {
  /** Request headers its routes read (e.g. `idempotency-key`). */
  readonly allow?: readonly string[];
  /** Response headers its routes set (e.g. `idempotent-replayed`). */
  readonly expose?: readonly string[];
}

/** The longest a request's headers may take to arrive, and how often Node checks (at most the request timeout). */
const MAX_HEADERS_WAIT_MS = 10_000;
const HEADERS_CHECK_INTERVAL_MS = 1_000;
const NODE_REQUEST_TIMEOUT_MS = 300_000;

export interface HttpServerOptions {
  logger: Logger;
  clock: Clock;
  random: Random;
  requestTimeoutMs: number;
  corsAllowedOrigins: readonly string[];
  corsHeaders?: CorsHeaders;
  /** `false`, or the list of trusted proxy addresses/CIDRs whose X-Forwarded-For is honoured. */
  trustProxy: false | readonly string[];
  maxConnections?: number;
  /** The largest request body read (default `MAX_BODY_BYTES`). */
  bodyLimit?: number;
  /** The longest a request's headers may take to arrive (default 10 s; never past `requestTimeoutMs`). */
  headersTimeoutMs?: number;
  /** The longest a request's body may take to arrive after its headers (default: until `requestTimeoutMs`). */
  bodyTimeoutMs?: number;
  /**
   * A service's own problem for a platform code its contract names otherwise (the verifier's 414 is
   * `request.uri_too_long`), by the platform code.
   */
  serviceProblems?: Readonly<Record<string, () => Problem>>;
  /**
   * Runs once per response before it is written. Throwing a Problem replaces the response
   * (used by the fail-closed audit write).
   */
  beforeSend?: (request: RouteRequest, reply: RouteReply) => void;
  /**
   * The deferred form of `beforeSend`: the response waits until `done` is called, and an error passed to it
   * replaces the response. Lets the audit write group the records of one event-loop turn into one append.
   */
  commitResponse?: (request: RouteRequest, reply: RouteReply, done: (error?: unknown) => void) => void;
  /** Serve the routes registered with `addRoute` on the fast lane as well (default true). */
  fastLane?: boolean;
  /**
   * `Cache-Control` of every answer that sets none: routed or not, refusals and problems that replace a response
   * included (default `DEFAULT_CACHE_CONTROL`; an admin listener's is `no-store`).
   */
  cacheControl?: string;
  /**
   * Told after a request whose client went away was answered (`http.client_closed`) and its deadline brought
   * forward to now: work that waits for a deadline it read earlier (a running rule) can look again.
   */
  onClientGone?: () => void;
}

/** The steps every response goes through, whichever path (Fastify or the fast lane) serves it. */
export interface ResponsePipeline {
  beginRequest(request: RouteRequest, reply: RouteReply): void;
  /** Headers every response carries, then the commit hooks; `done` receives the payload to write. */
  finishResponse<T>(
    request: RouteRequest,
    reply: RouteReply,
    payload: T,
    done: (out: T | Buffer) => void,
  ): void;
  sendProblem(request: RouteRequest, reply: RouteReply, problem: Problem): void;
  toProblem(error: unknown, request?: RouteRequest): Problem;
  readonly watchdog: ReturnType<typeof createRequestWatchdog>;
  newRequestId(): string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Node's request listener for this app: the fast lane first, Fastify for everything else. */
    readonly dispatch: (request: IncomingMessage, response: ServerResponse) => void;
    readonly fastLane: FastLane | undefined;
  }
}

export function createHttpServerApp(options: HttpServerOptions): FastifyInstance {
  const { clock, random, logger } = options;
  const allowedOrigins = new Set(options.corsAllowedOrigins);
  const allowHeaders = [...CORS_ALLOW_HEADERS, ...(options.corsHeaders?.allow ?? [])].join(', ');
  const exposeHeaders = [...CORS_EXPOSE_HEADERS, ...(options.corsHeaders?.expose ?? [])].join(', ');
  const problemOf = (error: unknown, request?: RouteRequest): Problem => {
    const problem = toProblem(error, logger, request);
    return options.serviceProblems?.[problem.code]?.() ?? problem;
  };
  const trustedProxies = compileTrustedProxies(options.trustProxy);
  const cacheControl = options.cacheControl ?? DEFAULT_CACHE_CONTROL;
  const watchdog = createRequestWatchdog(options.requestTimeoutMs, (request, reply) => {
    // A response already on its way (waiting for its audit record, which Fastify does not count as sent) goes
    // out: the time-out answer would only be dropped behind it.
    if (reply.sent || request.ctx?.responding || request.ctx?.untimed) return;
    if (request.ctx) request.ctx.timedOut = true;
    sendProblem(request, reply, platformProblem('internal.timeout'));
  });

  /**
   * The connection of a response closed before it was written: its client has gone. A request still being worked
   * on is answered now (its audit record says so) and its deadline becomes now, so that its reads and rules not yet
   * started never start. A request whose body was still arriving is left to the body reader, which answers it.
   */
  const clientGone = (response: ServerResponse): void => {
    const watched = watchdog.abandon(response.req);
    if (watched === undefined) return;
    const { request, reply } = watched;
    if (!request.raw.complete || reply.sent || request.ctx?.responding || request.ctx?.untimed) return;
    request.ctx.clientGone = true;
    sendProblem(request, reply, platformProblem('http.client_closed'));
    options.onClientGone?.();
  };

  /** Per-request state and the CORS echo: the first step of every request, routed or not. */
  const beginRequest = (request: RouteRequest, reply: RouteReply): void => {
    splitRepeatedHeaders(request.raw);
    pinClientAddress(request, trustedProxies);
    request.ctx = {
      requestId: request.id,
      startedAt: clock.now(),
      clientRequestId: correlationId(request.headers['x-request-id']),
      principal: undefined,
      audit: {},
      errorCode: undefined,
    };
    if (allowedOrigins.size === 0) return;
    // The echo depends on Origin, so every answer says so, those without it too: a cache would otherwise hand a
    // plain request's answer to a listed page, whose browser refuses it for the missing echo.
    reply.header('vary', 'Origin');
    const origin = request.headers.origin;
    if (origin !== undefined && allowedOrigins.has(origin)) {
      reply.header('access-control-allow-origin', origin);
      // On the actual response: that is where a browser looks for what the page may read.
      reply.header('access-control-expose-headers', exposeHeaders);
    }
  };

  /**
   * The response replaced by a problem (a failed commit): nothing of the original may survive. The problem is
   * written once the route has undone what it recorded (`onReplaced`), so that a retry sent on seeing it finds that
   * undone (a batch's Idempotency-Key released).
   */
  const answerWithProblem = <T>(
    request: RouteRequest,
    reply: RouteReply,
    error: unknown,
    done: (out: T | Buffer) => void,
  ): void => {
    const undone = request.ctx.onReplaced?.();
    const problem = problemOf(error, request);
    request.ctx.errorCode = problem.code;
    reply.code(problem.status);
    clearResultHeaders(reply);
    reply.header('content-type', PROBLEM_MEDIA_TYPE).header('cache-control', cacheControl);
    const body = Buffer.from(JSON.stringify(renderProblemJson(problem, request.id)));
    const write = () => done(closingIfBodyPending(request, reply, body));
    if (undone instanceof Promise) undone.then(write, write);
    else write();
  };

  const finishResponse = <T>(
    request: RouteRequest,
    reply: RouteReply,
    payload: T,
    done: (out: T | Buffer) => void,
  ): void => {
    // One response per request: a second (the handler's, after the watchdog answered 504) never reaches the
    // socket, where it would write over the first. Its route learns that what it sent was not delivered.
    if (request.ctx?.responding) {
      void request.ctx.onReplaced?.();
      return;
    }
    if (request.ctx) request.ctx.responding = true;
    // Taken now: one the route sets later belongs to a response of its own, which is dropped (above).
    const committed = request.ctx?.onCommitted;
    for (const name in SECURITY_HEADERS) {
      if (!reply.hasHeader(name)) reply.header(name, SECURITY_HEADERS[name] as string);
    }
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', cacheControl);
    reply.header('x-request-id', request.id);
    if (options.beforeSend) {
      try {
        options.beforeSend(request, reply);
      } catch (error) {
        answerWithProblem(request, reply, error, done);
        return;
      }
    }
    if (!options.commitResponse) {
      afterCommit(committed, () => done(closingIfBodyPending(request, reply, payload)));
      return;
    }
    // A time-out or client-gone answer waits for its commit while the handler may still run: what it sets on the
    // reply meanwhile (its content type, its status) is undone before the answer is written.
    const restore = request.ctx?.timedOut || request.ctx?.clientGone ? frozenHead(reply) : undefined;
    try {
      options.commitResponse(request, reply, (error) => {
        restore?.();
        if (error === undefined)
          afterCommit(committed, () => done(closingIfBodyPending(request, reply, payload)));
        else answerWithProblem(request, reply, error, done);
      });
    } catch (error) {
      answerWithProblem(request, reply, error, done);
    }
  };

  const pipeline: ResponsePipeline = {
    beginRequest,
    finishResponse,
    sendProblem,
    toProblem: problemOf,
    watchdog,
    newRequestId: () => random.ulid(clock.now()),
  };
  const lane = options.fastLane === false ? undefined : createFastLane(pipeline);
  let fastifyHandler: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
  let inFlight: InFlightResponses | undefined;
  const dispatch = (request: IncomingMessage, response: ServerResponse): void => {
    if (refuseBadHost(request, response, pipeline.newRequestId)) return;
    if (lane?.handle(request, response)) return;
    (fastifyHandler as NonNullable<typeof fastifyHandler>)(request, response);
  };

  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimit ?? MAX_BODY_BYTES,
    trustProxy: options.trustProxy === false ? false : [...options.trustProxy],
    genReqId: pipeline.newRequestId,
    requestIdHeader: false,
    // Closing is ours: requests read while closing get a problem (onRequest below), and the server drains
    // (drain-server.ts) rather than letting Node cut the responses still being written.
    return503OnClosing: false,
    forceCloseConnections: false,
    clientErrorHandler: (error, socket) =>
      // serverFactory (below) has set inFlight: Fastify calls it while it is constructed, before any connection.
      answerClientError(
        error,
        socket,
        pipeline.newRequestId(),
        (inFlight as InFlightResponses)(socket as Socket),
      ),
    // A path parameter may be as long as the URI limit allows; longer ones are answered by frameworkErrors.
    routerOptions: { maxParamLength: MAX_URI_BYTES },
    // The router answers undecodable paths and overlong parameters itself, outside every hook; give those
    // responses the same request id, headers, audit record and problem body as any other.
    frameworkErrors: (error, request, routeReply) => {
      const reply = routeReply as FastifyReply;
      beginRequest(request, reply);
      const body = renderProblemBody(request, reply, problemOf(error, request));
      finishResponse(request, reply, body, (out) => reply.send(out));
    },
    serverFactory: (handler) => {
      fastifyHandler = handler;
      const headersTimeoutMs = Math.min(
        options.requestTimeoutMs,
        options.headersTimeoutMs ?? MAX_HEADERS_WAIT_MS,
      );
      // Headers up to 64 KiB reach us, so an overlong URI gets our 414 problem rather than Node's bare 431.
      const server = createHttpServer(
        {
          maxHeaderSize: 64 * 1024,
          // A client that never finishes its headers holds a connection slot: Node waits 60 s, checked every
          // 30 s, so a few slow clients could fill `max_connections`. Headers arrive in one packet in practice.
          headersTimeout: headersTimeoutMs,
          // Node's own limit on receiving a whole request (300 s by default) would cut a slow body with a bare 408
          // before a longer `request_timeout` answers it with its problem, so it never comes first unless a body
          // time-out is set: then it runs from the first byte, the headers' time plus the body's, and a request cut
          // by it is answered 504 internal.timeout (answerClientError).
          requestTimeout:
            options.bodyTimeoutMs === undefined
              ? Math.max(NODE_REQUEST_TIMEOUT_MS, options.requestTimeoutMs + 5_000)
              : headersTimeoutMs + options.bodyTimeoutMs,
          connectionsCheckingInterval: HEADERS_CHECK_INTERVAL_MS,
          // Refused with a problem by the dispatcher rather than Node's bare 400.
          requireHostHeader: false,
        },
        dispatch,
      );
      answerUnroutableRequests(server, pipeline.newRequestId);
      cutStalledAnswers(server, options.requestTimeoutMs);
      if (options.maxConnections) limitConnections(server, options.maxConnections);
      const deadlineMs = drainDeadlineMs(options.requestTimeoutMs);
      inFlight = drainOnClose(server, deadlineMs, clientGone, warnDrainCut(logger, deadlineMs));
      return server;
    },
  });

  app.decorateRequest('ctx', null as unknown as RequestContext);
  app.decorate('dispatch', dispatch).decorate('fastLane', lane);
  // While closing, new requests go to Fastify, where onRequest answers them 503 http.shutting_down.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    lane?.close();
    done();
  });

  // Hooks take callbacks rather than promises: they run on every request, and each promise costs a microtask.
  app.addHook('onRequest', (request, reply, done) => {
    beginRequest(request, reply);
    if (request.raw.method === 'HEAD') dropNotModifiedLength(reply.raw);
    if (closing) {
      done(
        platformProblem('http.shutting_down', 'The service is stopping and takes no new requests; retry.'),
      );
      return;
    }
    const url = request.raw.url ?? '';
    if (url.length > MAX_URI_BYTES) {
      done(platformProblem('internal.uri_too_long'));
      return;
    }
    if (!isWellFormedQuery(url)) {
      done(platformProblem('http.invalid_query'));
      return;
    }
    watchdog.watch(request, reply);
    done();
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    finishResponse(request, reply, payload, (out) => done(null, out));
  });

  app.addHook('onResponse', (request, _reply, done) => {
    watchdog.release(request);
    done();
  });

  app.addHook('onClose', (_instance, done) => {
    watchdog.stop();
    done();
  });

  app.setErrorHandler((error, request, reply) => {
    keepConnectionAfterReadBody(request, reply);
    sendProblem(request, reply, unroutedBodyProblem(app, request, error) ?? problemOf(error, request));
  });

  app.setNotFoundHandler((request, reply) => {
    sendProblem(request, reply, unansweredProblem(app, request.method, request.url));
  });

  registerOptionsRoute(app, { allowedOrigins, allowHeaders });
  refuseUnroutedUploads(app);

  return app;
}
