// Request bodies are read as sent: no content coding is decoded. A body sent gzip-compressed (or in any coding
// but `identity`) would otherwise be parsed as its compressed bytes, or, worse, a body that happens to parse would
// be taken for what the client meant. RFC 9110 §8.4.1: such a request is answered 415, by whatever parses the
// body (after the credential checks of routes that read their body late).
import type { IncomingHttpHeaders } from 'node:http';
import { platformProblem } from '../problem/platform-problems.ts';
import type { Problem } from '../problem/problem.ts';

/** Whether the request sends a body in a content coding other than `identity`. */
export function hasContentCoding(headers: IncomingHttpHeaders): boolean {
  if (!namesContentCoding(headers)) return false;
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Whether `Content-Encoding` names a coding other than `identity`, whatever the body. For a response, whose body may
 * be delimited by its connection closing (no length, no chunks), the bytes received tell whether there is one.
 */
export function namesContentCoding(headers: IncomingHttpHeaders): boolean {
  const coding = headers['content-encoding'];
  return coding !== undefined && !/^\s*identity\s*$/i.test(coding);
}

export function codedBodyProblem(): Problem {
  return platformProblem(
    'http.unsupported_media_type',
    'Content-Encoding is not accepted: send the body uncompressed.',
    { headers: { 'accept-encoding': 'identity' } },
  );
}
