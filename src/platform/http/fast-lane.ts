// The fast lane: hot routes served straight from node:http, ahead of Fastify. Fastify's request and reply machinery
// cost more per request than the whole of a bare node:http response, so the GET routes registered with
// `addGetRoute` (the relay's reads) and the JSON POST routes registered with `addJsonPostRoute` (the verifier's
// evaluations) run here through the same pipeline (request id, CORS echo, time-out, security headers, commit hooks,
// problem rendering) and the same handlers. Anything the lane does not claim (other methods, unknown or malformed
// paths, a body that is not plainly JSON within its limit, a closing server) goes to Fastify unchanged.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import FindMyWay from 'find-my-way';
import { hasContentCoding } from './content-coding.ts';
import type { ResponsePipeline } from './create-server.ts';
import { isWellFormedQuery } from './query-encoding.ts';
import { readJsonBody } from './read-json-body.ts';
import type { RequestContext } from './request-context.ts';
import type { RouteHandler, RouteReply, RouteRequest } from './route-types.ts';

/**
 * Runs before a POST body is read (authentication): what it throws is answered at once, and the body is never read.
 */
export type BeforeBody = (request: RouteRequest) => unknown;

/** Called after each lane response is written (request metrics). */
export type LaneResponseListener = (request: RouteRequest, reply: RouteReply, durationMs: number) => void;

export interface FastLane {
  add(path: string, handler: RouteHandler): void;
  /** A POST route whose body is JSON of at most `bodyLimit` bytes (others go to Fastify, which refuses them). */
  addJsonPost(path: string, handler: RouteHandler, bodyLimit: number, beforeBody?: BeforeBody): void;
  /** Serves the request when a lane route matches; false hands it to Fastify untouched. */
  handle(request: IncomingMessage, response: ServerResponse): boolean;
  onResponse(listener: LaneResponseListener): void;
  close(): void;
}

// Limits and matching as Fastify's router is configured (create-server.ts), so both agree on every path.
const MAX_PARAM_LENGTH = 8 * 1024;
const MAX_REMEMBERED_MATCHES = 1024;

interface LaneMatch {
  readonly handler: RouteHandler;
  /** POST routes only. */
  readonly bodyLimit: number | undefined;
  readonly beforeBody: BeforeBody | undefined;
  /** The route pattern. */
  readonly path: string;
  readonly params: unknown;
  readonly query: unknown;
}

export function createFastLane(pipeline: ResponsePipeline): FastLane {
  const router = FindMyWay({ maxParamLength: MAX_PARAM_LENGTH });
  const listeners: LaneResponseListener[] = [];
  let closing = false;
  // Clients poll and revalidate the same URLs, and matching one (path, parameters, query string) costs more than
  // the rest of the lane: recent matches are kept, frozen so that requests sharing one cannot change it.
  const recent = new Map<string, LaneMatch>();
  const match = (method: 'GET' | 'POST', url: string): LaneMatch | undefined => {
    const key = method === 'GET' ? url : `POST ${url}`;
    let found = recent.get(key);
    if (found !== undefined) return found;
    const routed = router.find(method, url);
    if (routed === null) return undefined;
    const route = routed.store as {
      handler: RouteHandler;
      path: string;
      bodyLimit?: number;
      beforeBody?: BeforeBody;
    };
    found = Object.freeze({
      handler: route.handler,
      bodyLimit: route.bodyLimit,
      beforeBody: route.beforeBody,
      path: route.path,
      params: Object.freeze(routed.params),
      query: Object.freeze(routed.searchParams),
    });
    if (recent.size >= MAX_REMEMBERED_MATCHES) recent.clear();
    recent.set(key, found);
    return found;
  };

  const start = (raw: IncomingMessage, response: ServerResponse, found: LaneMatch) => {
    const request = new LaneRequest(raw, pipeline.newRequestId(), found);
    const reply = new LaneReply(response, request, pipeline, listeners);
    pipeline.beginRequest(request, reply);
    pipeline.watchdog.watch(request, reply);
    return { request, reply };
  };

  return {
    add(path, handler) {
      router.on('GET', path, () => {}, { handler, path });
      recent.clear();
    },
    addJsonPost(path, handler, bodyLimit, beforeBody) {
      router.on('POST', path, () => {}, { handler, path, bodyLimit, beforeBody });
      recent.clear();
    },
    onResponse(listener) {
      listeners.push(listener);
    },
    close() {
      closing = true;
    },
    handle(raw, response) {
      const method = raw.method;
      if ((method !== 'GET' && method !== 'POST') || closing) return false;
      const url = raw.url ?? '';
      // Overlong targets get Fastify's 414 path, undecodable queries its 400; the router never sees them.
      if (url.length > MAX_PARAM_LENGTH || !isWellFormedQuery(url)) return false;
      const found = match(method, url);
      if (found === undefined) return false;
      if (method === 'GET') {
        const { request, reply } = start(raw, response, found);
        run(found.handler, request, reply, pipeline);
        return true;
      }
      const length = plainJsonLength(raw.headers, found.bodyLimit as number);
      if (length === undefined) return false;
      const { request, reply } = start(raw, response, found);
      const readBody = () =>
        readJsonBody(raw, length, (error, body) => {
          // A body that arrived after the time-out answer runs nothing: its client has had its 504.
          if (reply.sent) return;
          if (error !== undefined) {
            pipeline.sendProblem(request, reply, error);
            return;
          }
          request.body = body;
          run(found.handler, request, reply, pipeline);
        });
      if (found.beforeBody === undefined) readBody();
      else beforeBodyThen(found.beforeBody, request, reply, pipeline, readBody);
      return true;
    },
  };
}

/** Registers a GET route on Fastify and, when the app has one, on its fast lane. */
export function addGetRoute(app: FastifyInstance, path: string, handler: RouteHandler): void {
  app.get(path, handler);
  app.fastLane?.add(path, handler);
}

/**
 * Registers a JSON POST route on Fastify and, when the app has one, on its fast lane. Fastify keeps every body the
 * lane leaves to it (chunked, empty, over the limit, another media type) and refuses or parses it as before.
 */
export function addJsonPostRoute(
  app: FastifyInstance,
  path: string,
  handler: RouteHandler,
  options: { bodyLimit?: number; beforeBody?: BeforeBody } = {},
): void {
  const bodyLimit = options.bodyLimit ?? app.initialConfig.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const { beforeBody } = options;
  // Fastify's onRequest hooks run before its content parser reads the body, as the lane runs `beforeBody`.
  app.post(
    path,
    { bodyLimit, ...(beforeBody ? { onRequest: async (request) => beforeBody(request) } : {}) },
    handler,
  );
  app.fastLane?.addJsonPost(path, handler, bodyLimit, beforeBody);
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;

const PLAIN_JSON = /^application\/json(?:; ?charset=utf-8)?$/i;

/**
 * The body length when the lane can take the request as Fastify's JSON parser would: a Content-Length between 1
 * and the limit, no Transfer-Encoding or Content-Encoding, and `application/json` with no parameter but
 * `charset=utf-8`.
 */

function plainJsonLength(headers: IncomingHttpHeaders, limit: number): number | undefined {
  if (headers['transfer-encoding'] !== undefined || hasContentCoding(headers)) return undefined;
  const declared = headers['content-length'];
  if (declared === undefined || !/^[0-9]{1,10}$/.test(declared)) return undefined;
  const length = Number(declared);
  if (length === 0 || length > limit) return undefined;
  const type = headers['content-type'];
  if (type === undefined) return undefined;
  // Only the common spellings: any other goes to Fastify, whose parser decides (and refuses `app lication/json`).
  return PLAIN_JSON.test(type) ? length : undefined;
}

/** `next` once `beforeBody` has passed; what it throws (or rejects with) is the answer, and `next` never runs. */
function beforeBodyThen(
  beforeBody: BeforeBody,
  request: LaneRequest,
  reply: LaneReply,
  pipeline: ResponsePipeline,
  next: () => void,
): void {
  const fail = (error: unknown) => {
    if (!reply.sent) pipeline.sendProblem(request, reply, pipeline.toProblem(error, request));
  };
  let passed: unknown;
  try {
    passed = beforeBody(request);
  } catch (error) {
    fail(error);
    return;
  }
  if (passed !== null && typeof (passed as Promise<unknown>)?.then === 'function') {
    (passed as Promise<unknown>).then(() => {
      if (!reply.sent) next();
    }, fail);
  } else {
    next();
  }
}

function run(
  handler: RouteHandler,
  request: LaneRequest,
  reply: LaneReply,
  pipeline: ResponsePipeline,
): void {
  const fail = (error: unknown) => {
    if (!reply.sent) pipeline.sendProblem(request, reply, pipeline.toProblem(error, request));
  };
  const settled = () => {
    // Every handler sends; one that returns without doing so is a defect, not a reason to hang the client.
    if (!reply.sent) fail(new Error('route handler finished without sending a response'));
  };
  let result: unknown;
  try {
    result = handler(request, reply);
  } catch (error) {
    fail(error);
    return;
  }
  if (result !== null && typeof (result as Promise<unknown>)?.then === 'function') {
    (result as Promise<unknown>).then(settled, fail);
  } else {
    settled();
  }
}

class LaneRequest implements RouteRequest {
  readonly method: string;
  readonly raw: IncomingMessage;
  readonly id: string;
  readonly params: unknown;
  readonly query: unknown;
  body: unknown = undefined;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly routeOptions: { readonly url: string };
  readonly socket: Socket;
  /** Monotonic start, for the response listeners' durations. */
  readonly startedAt = performance.now();
  readonly ip: string;
  // Set by the pipeline's first step, before any handler runs.
  ctx = null as unknown as RequestContext;

  constructor(raw: IncomingMessage, id: string, found: LaneMatch) {
    this.raw = raw;
    this.method = raw.method ?? 'GET';
    this.id = id;
    this.params = found.params;
    this.query = found.query;
    this.url = raw.url ?? '';
    this.headers = raw.headers;
    this.routeOptions = { url: found.path };
    this.socket = raw.socket;
    // Behind trusted proxies, the pipeline's first step sets the forwarded client address (client-address.ts).
    this.ip = raw.socket.remoteAddress ?? '';
  }
}

class LaneReply implements RouteReply {
  statusCode = 200;
  sent = false;
  // Header names (lowercase) and values, alternating: the flat list `writeHead` takes as it is.
  private readonly fields: (string | number | string[])[] = [];
  private readonly raw: ServerResponse;
  private readonly request: LaneRequest;
  private readonly pipeline: ResponsePipeline;
  private readonly listeners: readonly LaneResponseListener[];

  constructor(
    raw: ServerResponse,
    request: LaneRequest,
    pipeline: ResponsePipeline,
    listeners: readonly LaneResponseListener[],
  ) {
    this.raw = raw;
    this.request = request;
    this.pipeline = pipeline;
    this.listeners = listeners;
  }

  /** Index of the header's name in `fields`, or -1 (a response has a dozen headers: a scan is cheapest). */
  private indexOf(name: string): number {
    const fields = this.fields;
    for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return i;
    return -1;
  }

  code(statusCode: number): this {
    this.statusCode = statusCode;
    return this;
  }

  header(name: string, value: string | number): this {
    const key = name.toLowerCase();
    const at = this.indexOf(key);
    if (at < 0) this.fields.push(key, value);
    else this.fields[at + 1] = value;
    return this;
  }

  hasHeader(name: string): boolean {
    return this.indexOf(name.toLowerCase()) >= 0;
  }

  getHeader(name: string): string | number | string[] | undefined {
    const at = this.indexOf(name.toLowerCase());
    return at < 0 ? undefined : this.fields[at + 1];
  }

  getHeaders(): Record<string, unknown> {
    const headers: Record<string, unknown> = {};
    for (let i = 0; i < this.fields.length; i += 2) headers[this.fields[i] as string] = this.fields[i + 1];
    return headers;
  }

  removeHeader(name: string): this {
    const at = this.indexOf(name.toLowerCase());
    if (at >= 0) this.fields.splice(at, 2);
    return this;
  }

  send(payload?: string | Buffer): this {
    // A second send (a handler finishing after its time-out answer) is dropped, as Fastify drops it.
    if (this.sent) return this;
    this.sent = true;
    this.pipeline.finishResponse(this.request, this, payload, (out) => this.write(out));
    return this;
  }

  private write(payload: string | Buffer | undefined): void {
    const status = this.statusCode;
    // Framing headers as Fastify writes them: none for 204 and 304, an explicit length for everything else.
    if (payload === undefined || payload === '') {
      if (status !== 204 && status !== 304) this.header('content-length', '0');
      payload = undefined;
    } else if (status === 204 || status === 304) {
      this.removeHeader('content-type');
      payload = undefined;
    } else {
      this.header(
        'content-length',
        typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length,
      );
    }
    this.raw.writeHead(status, this.fields as unknown as string[]);
    this.raw.end(payload);
    this.pipeline.watchdog.release(this.request);
    if (this.listeners.length > 0) {
      const duration = performance.now() - this.request.startedAt;
      for (const listener of this.listeners) listener(this.request, this, duration);
    }
  }
}
