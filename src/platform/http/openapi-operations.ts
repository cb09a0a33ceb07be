// Responses every operation of a runtime OpenAPI document shares because they are given before any route runs
// (the URI length limit) or by the token check (auth/oidc-openapi-responses.ts): added to each operation's own; and
// the caching headers every answer carries.
import { DEFAULT_CACHE_CONTROL } from './security-headers.ts';

export type OpenApiOperation = {
  readonly security?: readonly unknown[];
  readonly responses?: Record<string, unknown>;
};

const METHODS: ReadonlySet<string> = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch']);

/**
 * `paths` with `change` applied to every operation. New objects throughout: builders share response maps between
 * operations and across documents.
 */
export function mapOperations(
  paths: Record<string, unknown>,
  change: (operation: OpenApiOperation) => OpenApiOperation,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item as Record<string, unknown>).map(([key, value]) => [
          key,
          METHODS.has(key) ? change(value as OpenApiOperation) : value,
        ]),
      ),
    ]),
  );
}

/**
 * `paths` with a `default` problem on every operation: what any route may answer besides what it lists (500
 * `internal.unhandled`, 504 `internal.timeout`, the audit sink failing), so a client generated from the document
 * still reads the problem body.
 */
export function withDefaultProblem(
  paths: Record<string, unknown>,
  response: object,
): Record<string, unknown> {
  return mapOperations(paths, (operation) => ({
    ...operation,
    responses: { ...operation.responses, default: operation.responses?.default ?? response },
  }));
}

/** `paths` with a 414 on every operation: an overlong URI is refused before routing, whatever the route. */
export function withUriTooLong(paths: Record<string, unknown>, response: object): Record<string, unknown> {
  return mapOperations(paths, (operation) => ({
    ...operation,
    responses: { ...operation.responses, '414': operation.responses?.['414'] ?? response },
  }));
}

type DeclaredResponse = { readonly headers?: Record<string, unknown> };

/**
 * `paths` with the `WWW-Authenticate` challenge of the problem renderer (create-server.ts) on the refusals that carry
 * it: every 401 (RFC 9110 §11.6.1), and a 403 for a missing scope (`error="insufficient_scope"`, RFC 6750 §3.1).
 */
export function withAuthChallenges(paths: Record<string, unknown>): Record<string, unknown> {
  const challenge = (status: string) => ({
    description:
      status === '401'
        ? 'Bearer challenge; `error="invalid_token"` for a rejected OIDC token'
        : 'Bearer challenge with `error="insufficient_scope"` when the credential lacks the scope',
    required: status === '401',
    schema: { type: 'string' },
  });
  return mapOperations(paths, (operation) => {
    const responses: Record<string, unknown> = { ...operation.responses };
    for (const status of ['401', '403']) {
      const response = responses[status] as DeclaredResponse | undefined;
      if (response === undefined) continue;
      responses[status] = {
        ...response,
        headers: { ...response.headers, 'WWW-Authenticate': challenge(status) },
      };
    }
    return { ...operation, responses };
  });
}

type Response = { readonly headers?: Record<string, unknown> };

/** A response header declared once, in the document's `components.headers`. */
export const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** How a `Vary` description notes the CORS echo, which names `Origin` first on every answer. */
export const ORIGIN_FIRST = ' (after `Origin` where CORS origins are configured)';

/** The `components.headers` of what every answer carries unless its route says more (`CACHE_HEADERS`). */
export const CACHE_HEADER_COMPONENTS = {
  CacheControl: {
    required: true,
    description:
      'No shared cache may keep the answer; a client cache revalidates it (by its ETag, where it has one)',
    schema: { type: 'string', const: DEFAULT_CACHE_CONTROL },
  },
  Vary: {
    description: '`Origin`, on every answer, where CORS origins are configured',
    schema: { type: 'string' },
  },
};
/** What every answer carries unless its operation declares more (`withResponseHeaders`). */
export const CACHE_HEADERS = { 'Cache-Control': headerRef('CacheControl'), Vary: headerRef('Vary') };

/** `response` with each of `headers` it does not declare itself (header names compare in any case). */
function withHeaders(response: Response, headers: Record<string, unknown>): Response {
  const declared = new Set(Object.keys(response.headers ?? {}).map((name) => name.toLowerCase()));
  const missing = Object.entries(headers).filter(([name]) => !declared.has(name.toLowerCase()));
  return missing.length === 0
    ? response
    : { ...response, headers: { ...response.headers, ...Object.fromEntries(missing) } };
}

/**
 * `operation` with `headers` on each of its responses but a 414, answered before any route runs. For what a route
 * sets before it checks anything (its `Vary`), so every answer of the route carries it, refusals included.
 */
export function withOperationHeaders<T extends OpenApiOperation>(
  operation: T,
  headers: Record<string, unknown>,
): T {
  const responses = Object.entries(operation.responses ?? {}).map(([status, response]) => [
    status,
    status === '414' ? response : withHeaders(response as Response, headers),
  ]);
  return { ...operation, responses: Object.fromEntries(responses) };
}

/**
 * `paths` with `headers` on every response, the `default` included, that does not declare them itself: what the
 * server puts on every answer (`Cache-Control`, the CORS `Vary: Origin`). Applied last, after the shared responses.
 */
export function withResponseHeaders(
  paths: Record<string, unknown>,
  headers: Record<string, unknown>,
): Record<string, unknown> {
  return mapOperations(paths, (operation) => ({
    ...operation,
    responses: Object.fromEntries(
      Object.entries(operation.responses ?? {}).map(([status, response]) => [
        status,
        withHeaders(response as Response, headers),
      ]),
    ),
  }));
}
