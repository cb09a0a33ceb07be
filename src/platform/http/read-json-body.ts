// Reads and parses a JSON request body for the fast lane exactly as Fastify's default JSON parser does: UTF-8
// text, prototype and constructor poisoning refused, the same problems for the same failures. A member named
// twice is refused too; services that take JSON bodies through Fastify refuse it there (duplicateMemberProblem).
import type { IncomingMessage } from 'node:http';
import secureJsonParse from 'secure-json-parse';
import { platformProblem } from '../problem/platform-problems.ts';
import type { Problem } from '../problem/problem.ts';
import { hasDuplicateMember } from './duplicate-members.ts';

/** What a JSON body naming an object member twice answers. */
export function duplicateMemberProblem(): Problem {
  return platformProblem('http.invalid_body', 'The body names an object member twice.');
}

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
    const text = body.toString('utf8');
    let value: unknown;
    try {
      value = secureJsonParse.parse(text, null, PARSE_OPTIONS);
    } catch {
      settle(platformProblem('http.invalid_body', 'The body is not valid JSON.'));
      return;
    }
    if (hasDuplicateMember(text)) settle(duplicateMemberProblem());
    else settle(undefined, value);
  });
  // A client that goes away mid-body: answered (to nobody) so the request is still audited and released.
  raw.on('aborted', () => settle(platformProblem('http.invalid_body', 'The body was not received in full.')));
  raw.on('error', () => settle(platformProblem('http.invalid_body', 'The body was not received in full.')));
}
