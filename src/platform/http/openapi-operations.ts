// Responses every operation of a runtime OpenAPI document shares because they are given before any route runs
// (the URI length limit) or by the token check (auth/oidc-openapi-responses.ts): added to each operation's own.
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
