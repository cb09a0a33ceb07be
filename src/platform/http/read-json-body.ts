// Reads and parses a JSON request body for the fast lane exactly as Fastify's default JSON parser does: UTF-8
// text, prototype and constructor poisoning refused, the same problems for the same failures.
import type { IncomingMessage } from 'node:http';
import secureJsonParse from 'secure-json-parse';
import type { Problem } from '../problem/problem.ts';
import { platformProblem } from '../problem/platform-problems.ts';

const PARSE_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;

/**
 * Collects `length` bytes (the request's Content-Length, already checked against the route's limit), then calls
 * back once with the parsed value or the problem to answer.
 */
export function readJsonBody(
  raw: IncomingMessage,
  length: number,
  done: (problem: Problem | undefined, body?: unknown) => void,
): void {
  const body = Buffer.allocUnsafe(length);
  let received = 0;
  let settled = false;
  const settle = (problem: Problem | undefined, value?: unknown) => {
    if (settled) return;
    settled = true;
    done(problem, value);
  };
  raw.on('data', (chunk: Buffer) => {
    // Node's parser frames the body by Content-Length, so a chunk never runs past it; stay safe if one does.
    if (received + chunk.length > length) {
      settle(platformProblem('http.invalid_body', 'Invalid Content-Length.'));
      return;
    }
    chunk.copy(body, received);
    received += chunk.length;
  });
  raw.on('end', () => {
    if (received !== length) {
      settle(platformProblem('http.invalid_body', 'Invalid Content-Length.'));
      return;
    }
    let value: unknown;
    try {
      value = secureJsonParse.parse(body.toString('utf8'), null, PARSE_OPTIONS);
    } catch {
      settle(platformProblem('http.invalid_body', 'The body is not valid JSON.'));
      return;
    }
    settle(undefined, value);
  });
  // A client that goes away mid-body: answered (to nobody) so the request is still audited and released.
  raw.on('aborted', () => settle(platformProblem('http.invalid_body', 'The body was not received in full.')));
  raw.on('error', () => settle(platformProblem('http.invalid_body', 'The body was not received in full.')));
}
