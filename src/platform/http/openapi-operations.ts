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

/** `paths` with a 414 on every operation: an overlong URI is refused before routing, whatever the route. */
export function withUriTooLong(paths: Record<string, unknown>, response: object): Record<string, unknown> {
  return mapOperations(paths, (operation) => ({
    ...operation,
    responses: { ...operation.responses, '414': operation.responses?.['414'] ?? response },
  }));
}
