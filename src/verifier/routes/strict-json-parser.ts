// The verifier's JSON body parser on Fastify's path (batches, renders, evaluations the fast lane leaves to
// Fastify): Fastify's own, which refuses prototype poisoning, plus refusals of bytes that are not UTF-8 and of
// members named twice, as the fast lane refuses them (read-json-body.ts), and of bodies in a content coding (which
// the fast lane leaves to this parser).
import type { FastifyInstance } from 'fastify';
import { codedBodyProblem, hasContentCoding } from '../../platform/http/content-coding.ts';
import { hasDuplicateMember } from '../../platform/http/duplicate-members.ts';
import { duplicateMemberProblem, utf8Body } from '../../platform/http/read-json-body.ts';

/** Replaces the scope's `application/json` parser; `emptyAsNone`: a blank body parses as no body. */
export function useStrictJsonParser(scope: FastifyInstance, options: { emptyAsNone?: boolean } = {}): void {
  const json = scope.getDefaultJsonParser('error', 'error');
  // Fastify also parses text/plain, which would reach validation as a string (400); bodies are JSON only (415).
  if (scope.hasContentTypeParser('text/plain')) scope.removeContentTypeParser('text/plain');
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    if (hasContentCoding(request.headers)) {
      done(codedBodyProblem());
      return;
    }
    let text: string;
    try {
      text = utf8Body(body as Buffer);
    } catch (problem) {
      done(problem as Error);
      return;
    }
    if (options.emptyAsNone === true && text.trim() === '') {
      done(null, undefined);
      return;
    }
    json(request, text, (error, value) => {
      if (error) done(error);
      else if (hasDuplicateMember(text)) done(duplicateMemberProblem());
      else done(null, value);
    });
  });
}
