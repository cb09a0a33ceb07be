// Reads and parses a JSON request body for the fast lane as Fastify's default JSON parser does: prototype and
// constructor poisoning refused, the same problems for the same failures. A member named twice is refused too, and
// so are bytes that are not UTF-8; services that take JSON bodies through Fastify refuse them there (utf8Body,
// duplicateMemberProblem).
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import secureJsonParse from 'secure-json-parse';
import { platformProblem } from '../problem/platform-problems.ts';
import type { Problem } from '../problem/problem.ts';
import { hasDuplicateMember } from './duplicate-members.ts';

/** What a JSON body naming an object member twice answers. */
export function duplicateMemberProblem(): Problem {
  return platformProblem('http.invalid_body', 'The body names an object member twice.');
}

/**
 * The body's text. Bytes that are not UTF-8 are refused (RFC 8259 §8.1), never replaced by U+FFFD: two different
 * byte strings would otherwise read as the same text (the same subject, the same filter value).
 */
export function utf8Body(bytes: Buffer): string {
  if (!isUtf8(bytes)) throw platformProblem('http.invalid_body', 'The body is not UTF-8.');
  return bytes.toString('utf8');
}

const PARSE_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;

/** The first buffer's size when the body is larger: a body arriving whole is copied once. */
const FIRST_BYTES = 16 * 1024;

/**
 * Collects `length` bytes (the request's Content-Length, already checked against the route's limit), then calls
 * back once with the parsed value or the problem to answer.
 */
export function readJsonBody(
  raw: IncomingMessage,
  length: number,
  done: (problem: Problem | undefined, body?: unknown) => void,
): void {
  // Grown as bytes arrive, so memory follows what was received, not the length a client declares and may never
  // send (a buffer of the declared size up front held 1 GiB for 1,024 connections that sent headers only).
  let body: Buffer | undefined;
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
    const needed = received + chunk.length;
    if (body === undefined || needed > body.length) {
      const grown = Buffer.allocUnsafe(
        Math.min(length, Math.max(needed, 2 * (body?.length ?? 0), FIRST_BYTES)),
      );
      body?.copy(grown, 0, 0, received);
      body = grown;
    }
    chunk.copy(body, received);
    received = needed;
  });
  raw.on('end', () => {
    if (received !== length) {
      settle(platformProblem('http.invalid_body', 'Invalid Content-Length.'));
      return;
    }
    let text: string;
    let value: unknown;
    try {
      text = body === undefined ? '' : utf8Body(body.subarray(0, received));
    } catch (problem) {
      settle(problem as Problem);
      return;
    }
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
