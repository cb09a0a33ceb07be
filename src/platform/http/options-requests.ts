// OPTIONS on every path. A CORS preflight (a request naming an Origin or a method to preflight) is answered for a
// listed origin only. A plain OPTIONS (RFC 9110 §9.3.7), which no browser sends, learns the methods the path
// answers: it grants nothing a browser would act on, so it needs no origin.
import type { FastifyInstance } from 'fastify';
import { platformProblem } from '../problem/platform-problems.ts';
import { allowedMethods } from './allowed-methods.ts';

export interface PreflightRules {
  readonly allowedOrigins: ReadonlySet<string>;
  /** The `Access-Control-Allow-Headers` value. */
  readonly allowHeaders: string;
}

export function registerOptionsRoute(app: FastifyInstance, rules: PreflightRules): void {
  app.options('*', async (request, reply) => {
    const origin = request.headers.origin;
    if (origin === undefined && request.headers['access-control-request-method'] === undefined) {
      // `OPTIONS *` asks about the server as a whole: it answers, and no one path's methods apply.
      if (request.url === '*') {
        reply.code(204);
        return '';
      }
      const methods = allowedMethods(app, request.url);
      if (methods.length === 0) throw platformProblem('http.not_found');
      reply.code(204).header('allow', [...methods, 'OPTIONS'].join(', '));
      return '';
    }
    if (origin === undefined || !rules.allowedOrigins.has(origin)) throw platformProblem('http.cors_denied');
    reply
      .code(204)
      .header('access-control-allow-methods', 'GET, HEAD, POST')
      .header('access-control-allow-headers', rules.allowHeaders)
      .header('access-control-max-age', '600');
    return '';
  });
}
