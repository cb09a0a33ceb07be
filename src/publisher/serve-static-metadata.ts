// `ambit metadata serve`: a static publication over HTTP, unauthenticated and read-only, with exact media
// types, ETags and the platform's security headers. Only files under the publication root are ever served.
import { readFileSync, realpathSync, type Stats, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../platform/clock.ts';
import { createHttpServerApp } from '../platform/http/create-server.ts';
import { etagOfBody, isNotModified } from '../platform/http/etag.ts';
import type { Logger } from '../platform/log.ts';
import { platformProblem } from '../platform/problem/platform-problems.ts';
import type { Random } from '../platform/random.ts';
import { staticMediaType } from './static-media-types.ts';

export interface StaticServerDeps {
  readonly logger: Logger;
  readonly clock: Clock;
  readonly random: Random;
}

const MAX_FILE_BYTES = 32 * 1024 * 1024;

export function createStaticMetadataApp(dir: string, deps: StaticServerDeps): FastifyInstance {
  const root = realpathSync(dir);
  const app = createHttpServerApp({
    ...deps,
    requestTimeoutMs: 30_000,
    corsAllowedOrigins: [],
    trustProxy: false,
  });
  app.get('/*', async (request, reply) => {
    const relative = resolvePath((request.params as { '*': string })['*']);
    const file = relative === undefined ? undefined : locate(root, relative);
    if (file === undefined) throw platformProblem('http.not_found', 'No published file at this path.');
    const body = readPublished(file.absolute);
    const etag = etagOfBody('static:', body.toString('latin1'));
    reply.header('etag', etag).header('cache-control', 'no-cache');
    if (isNotModified(request, etag)) return reply.code(304).send();
    return reply.header('content-type', staticMediaType(file.relative)).send(body);
  });
  return app;
}

/** The file's bytes; one a publish moved away since it was found is not published any more (404, not 500). */
function readPublished(absolute: string): Buffer {
  try {
    return readFileSync(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') {
      throw platformProblem('http.not_found', 'No published file at this path.');
    }
    throw error;
  }
}

/** URL path -> relative file path; dot segments and hidden names are refused (`.well-known` excepted). */
function resolvePath(urlPath: string): string | undefined {
  const segments = urlPath.split('/').filter((segment) => segment !== '');
  const hidden = segments.some(
    (segment, i) => segment.startsWith('.') && !(i === 0 && segment === '.well-known'),
  );
  if (hidden || segments.some((segment) => segment.includes('\\') || segment.includes('\0')))
    return undefined;
  return segments.join('/');
}

/** The file for a relative path (a directory means its index.json), if it lies inside the root. */
function locate(root: string, relative: string): { absolute: string; relative: string } | undefined {
  const candidates = relative === '' ? ['metadata/index.json'] : [relative, `${relative}/index.json`];
  for (const candidate of candidates) {
    let absolute: string;
    let stat: Stats;
    try {
      // realpath resolves symlinks, so a link pointing outside the root is refused like any other path.
      absolute = realpathSync(join(root, ...candidate.split('/')));
      if (!absolute.startsWith(root + sep)) continue;
      // A publish may move the file away between the two calls: then it is not published any more.
      stat = statSync(absolute);
    } catch {
      continue;
    }
    if (stat.isFile() && stat.size <= MAX_FILE_BYTES) return { absolute, relative: candidate };
  }
  return undefined;
}
