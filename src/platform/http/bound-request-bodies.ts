// One body limit for every request of an app, whatever its method. Fastify reads the body of a POST within
// `bodyLimit` but never reads a GET's, which Node then drains after the answer, however large. Here a GET's body is
// held to the same limit, and the rest of a body over it is never read: the answer closes the connection, as any
// answer written while its body is still arriving does (closingIfBodyPending, in the server's finishResponse).
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { platformProblem } from '../problem/platform-problems.ts';
import type { Problem } from '../problem/problem.ts';

/** The methods whose body Fastify leaves unread. */
const UNREAD_BODY_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'TRACE']);

export function boundRequestBodies(app: FastifyInstance, limit: number): void {
  const tooLarge = () =>
    platformProblem('internal.payload_too_large', `The request body exceeds ${limit} bytes.`);
  // preParsing runs after the route's onRequest guard: the credential and scope are still checked first.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const raw = request.raw;
    const declared = raw.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) {
      done(tooLarge());
      return;
    }
    // A declared length within the limit bounds what Node drains; a chunked body has none, so it is read here.
    if (!UNREAD_BODY_METHODS.has(request.method) || raw.headers['transfer-encoding'] === undefined) {
      done(null, payload);
      return;
    }
    discardWithin(raw, limit, tooLarge, (problem) => {
      if (problem === undefined) done(null, payload);
      else done(problem);
    });
  });
}

/** Reads the body and drops it; stops reading once it passes `limit`. */
function discardWithin(
  raw: IncomingMessage,
  limit: number,
  tooLarge: () => Problem,
  done: (problem?: Problem) => void,
): void {
  let received = 0;
  let settled = false;
  const settle = (problem?: Problem) => {
    if (settled) return;
    settled = true;
    raw.off('data', onData);
    done(problem);
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received <= limit) return;
    raw.pause();
    settle(tooLarge());
  };
  raw.on('data', onData);
  raw.on('end', () => settle());
  const cut = () => settle(platformProblem('http.invalid_body', 'The body was not received in full.'));
  raw.on('aborted', cut);
  raw.on('error', cut);
}
