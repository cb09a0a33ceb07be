// Server bootstrap shared by every service: request ids, limits, security headers, CORS and the error boundary.
import { createServer as createHttpServer } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import { platformProblem } from '../problem/platform-problems.ts';
import { isProblem, type Problem } from '../problem/problem.ts';
import { PROBLEM_MEDIA_TYPE, renderProblemJson } from '../problem/render-problem-json.ts';
import type { Random } from '../random.ts';
import type { RequestContext } from './request-context.ts';
import { createRequestWatchdog } from './request-watchdog.ts';
import { SECURITY_HEADERS } from './security-headers.ts';

export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_URI_BYTES = 8 * 1024;

export interface HttpServerOptions {
  logger: Logger;
  clock: Clock;
  random: Random;
  requestTimeoutMs: number;
  corsAllowedOrigins: readonly string[];
  /** `false`, or the list of trusted proxy addresses/CIDRs whose X-Forwarded-For is honoured. */
  trustProxy: false | readonly string[];
  maxConnections?: number;
  /**
   * Runs once per response before it is written. Throwing a Problem replaces the response
   * (used by the fail-closed audit write).
   */
  beforeSend?: (request: FastifyRequest, reply: FastifyReply) => void;
}

export function createHttpServerApp(options: HttpServerOptions): FastifyInstance {
  const { clock, random, logger } = options;
  const allowedOrigins = new Set(options.corsAllowedOrigins);
  const watchdog = createRequestWatchdog(options.requestTimeoutMs, (request, reply) => {
    if (!reply.sent) sendProblem(request, reply, platformProblem('internal.timeout'));
  });

  /** Per-request state and the CORS echo: the first step of every request, routed or not. */
  const beginRequest = (request: FastifyRequest, reply: FastifyReply): void => {
    const clientRequestId = request.headers['x-request-id'];
    request.ctx = {
      requestId: request.id,
      startedAt: clock.now(),
      clientRequestId: typeof clientRequestId === 'string' ? clientRequestId.slice(0, 128) : undefined,
      principal: undefined,
      audit: {},
      errorCode: undefined,
    };
    const origin = request.headers.origin;
    if (origin !== undefined && allowedOrigins.has(origin)) {
      reply.header('access-control-allow-origin', origin);
      reply.header('vary', 'Origin');
    }
  };

  /** Headers every response carries, then `beforeSend`; returns the payload to write (a problem if it threw). */
  const finishResponse = <T>(request: FastifyRequest, reply: FastifyReply, payload: T): T | Buffer => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
      if (!reply.hasHeader(name)) reply.header(name, value);
    }
    reply.header('x-request-id', request.id);
    if (!options.beforeSend) return payload;
    try {
      options.beforeSend(request, reply);
      return payload;
    } catch (error) {
      const problem = toProblem(error, logger, request);
      request.ctx.errorCode = problem.code;
      reply.code(problem.status);
      reply.header('content-type', PROBLEM_MEDIA_TYPE);
      // Nothing of the replaced response may survive: its validator and its next-page cursor included.
      reply.removeHeader('etag');
      reply.removeHeader('link');
      return Buffer.from(JSON.stringify(renderProblemJson(problem, request.id)));
    }
  };

  const app = Fastify({
    logger: false,
    bodyLimit: MAX_BODY_BYTES,
    trustProxy: options.trustProxy === false ? false : [...options.trustProxy],
    genReqId: () => random.ulid(clock.now()),
    requestIdHeader: false,
    return503OnClosing: true,
    // A path parameter may be as long as the URI limit allows; longer ones are answered by frameworkErrors.
    routerOptions: { maxParamLength: MAX_URI_BYTES },
    // The router answers undecodable paths and overlong parameters itself, outside every hook; give those
    // responses the same request id, headers, audit record and problem body as any other.
    frameworkErrors: (error, request, routeReply) => {
      const reply = routeReply as FastifyReply;
      beginRequest(request, reply);
      const body = renderProblemBody(request, reply, toProblem(error, logger, request));
      reply.send(finishResponse(request, reply, body));
    },
    serverFactory: (handler) => {
      // Headers up to 64 KiB reach us, so an overlong URI gets our 414 problem rather than Node's bare 431.
      const server = createHttpServer({ maxHeaderSize: 64 * 1024 }, handler);
      if (options.maxConnections) server.maxConnections = options.maxConnections;
      return server;
    },
  });

  app.decorateRequest('ctx', null as unknown as RequestContext);

  // Hooks take callbacks rather than promises: they run on every request, and each promise costs a microtask.
  app.addHook('onRequest', (request, reply, done) => {
    beginRequest(request, reply);
    if ((request.raw.url ?? '').length > MAX_URI_BYTES) {
      done(platformProblem('internal.uri_too_long'));
      return;
    }
    watchdog.watch(request, reply);
    done();
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    done(null, finishResponse(request, reply, payload));
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
    sendProblem(request, reply, toProblem(error, logger, request));
  });

  app.setNotFoundHandler((request, reply) => {
    sendProblem(request, reply, platformProblem('http.not_found'));
  });

  app.options('*', async (request, reply) => {
    const origin = request.headers.origin;
    if (origin === undefined || !allowedOrigins.has(origin)) throw platformProblem('http.cors_denied');
    reply
      .code(204)
      .header('access-control-allow-methods', 'GET, HEAD, POST')
      .header(
        'access-control-allow-headers',
        'authorization, x-api-key, data-purpose, content-type, if-none-match, x-request-id, accept',
      )
      .header('access-control-expose-headers', 'etag, link, x-request-id, retry-after')
      .header('access-control-max-age', '600');
    return '';
  });

  return app;
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, problem: Problem): FastifyReply {
  return reply.send(renderProblemBody(request, reply, problem));
}

/** Status, headers and error code of a problem response; returns its body. */
function renderProblemBody(request: FastifyRequest, reply: FastifyReply, problem: Problem): Buffer {
  if (request.ctx) request.ctx.errorCode = problem.code;
  for (const [name, value] of Object.entries(problem.headers)) reply.header(name, value);
  if (problem.status === 401 && !reply.hasHeader('www-authenticate')) {
    reply.header('www-authenticate', 'Bearer realm="ambit"');
  }
  reply.code(problem.status).header('content-type', PROBLEM_MEDIA_TYPE);
  // A Buffer keeps the media type exactly application/problem+json (no charset parameter appended).
  return Buffer.from(JSON.stringify(renderProblemJson(problem, request.id)));
}

const FASTIFY_CODES: Record<string, () => Problem> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => platformProblem('internal.payload_too_large'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => platformProblem('http.unsupported_media_type'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => platformProblem('http.invalid_body', 'Invalid Content-Length.'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => platformProblem('http.invalid_body', 'The JSON body is empty.'),
  FST_ERR_CTP_INVALID_JSON_BODY: () => platformProblem('http.invalid_body', 'The body is not valid JSON.'),
  // No route can match a path that does not percent-decode.
  FST_ERR_BAD_URL: () => platformProblem('http.not_found', 'The path is not valid percent-encoding.'),
  FST_ERR_MAX_PARAM_LENGTH: () => platformProblem('internal.uri_too_long'),
};

/** Map anything thrown to a catalogued problem: foreign errors by code, unknown ones to a generic 500. */
export function toProblem(error: unknown, logger: Logger, request?: FastifyRequest): Problem {
  if (isProblem(error)) return error;
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && FASTIFY_CODES[code]) return FASTIFY_CODES[code]();
  const status = (error as { statusCode?: unknown })?.statusCode;
  if (error instanceof SyntaxError && status === 400) return platformProblem('http.invalid_body');
  if ((error as { validation?: unknown })?.validation) {
    return platformProblem('http.invalid_body', 'The request does not match the route schema.');
  }
  logger.error({ err: error, request_id: request?.id }, 'unhandled error');
  return platformProblem('internal.unhandled', 'An internal error occurred.', { cause: error });
}
