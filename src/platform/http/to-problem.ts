// Anything thrown by a route or by Fastify, as the catalogued problem it answers with.
import type { Logger } from '../log.ts';
import { platformProblem } from '../problem/platform-problems.ts';
import { isProblem, type Problem } from '../problem/problem.ts';
import type { RouteRequest } from './route-types.ts';

const FASTIFY_CODES: Record<string, () => Problem> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => platformProblem('internal.payload_too_large'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    platformProblem('http.unsupported_media_type', 'Send the body as `Content-Type: application/json`.'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => platformProblem('http.invalid_body', 'Invalid Content-Length.'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => platformProblem('http.invalid_body', 'The JSON body is empty.'),
  FST_ERR_CTP_INVALID_JSON_BODY: () => platformProblem('http.invalid_body', 'The body is not valid JSON.'),
  // No route can match a path that does not percent-decode.
  FST_ERR_BAD_URL: () => platformProblem('http.not_found', 'The path is not valid percent-encoding.'),
  FST_ERR_MAX_PARAM_LENGTH: () => platformProblem('internal.uri_too_long'),
};

/** Map anything thrown to a catalogued problem: foreign errors by code, unknown ones to a generic 500. */
export function toProblem(error: unknown, logger: Logger, request?: RouteRequest): Problem {
  if (isProblem(error)) return error;
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && FASTIFY_CODES[code]) return FASTIFY_CODES[code]();
  const status = (error as { statusCode?: unknown })?.statusCode;
  if (error instanceof SyntaxError && status === 400) return platformProblem('http.invalid_body');
  // The client went away while its body was being read (Node's 'aborted', passed on by Fastify's body reader):
  // its mistake, answered as the fast lane answers it, not an error of ours to log.
  if (code === 'ECONNRESET' && status === 400) {
    return platformProblem('http.invalid_body', 'The body was not received in full.');
  }
  if ((error as { validation?: unknown })?.validation) {
    return platformProblem('http.invalid_body', 'The request does not match the route schema.');
  }
  logger.error({ err: error, request_id: request?.id }, 'unhandled error');
  return platformProblem('internal.unhandled', 'An internal error occurred.', { cause: error });
}
