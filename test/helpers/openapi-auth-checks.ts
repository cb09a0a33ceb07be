// Checks on a runtime OpenAPI document against what its service's credential check can answer.
import assert from 'node:assert/strict';

type Operation = {
  security?: unknown[];
  responses: Record<string, { description: string; headers?: Record<string, unknown> }>;
};

/** The document's operations, as `METHOD path`. */
function operations(document: { paths: Record<string, Record<string, Operation>> }): [string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]): [string, Operation] => [
      `${method.toUpperCase()} ${path}`,
      operation,
    ]),
  );
}

/**
 * In OIDC mode every operation that authenticates declares 403 for a token client outside `allowed_clients`
 * (`auth.client_not_allowed`) and 503 for issuer keys that cannot be fetched (`auth.jwks_unavailable`), besides
 * its own reasons for those statuses; open operations declare neither. Returns how many authenticate.
 */
export function assertOidcAuthResponses(document: {
  paths: Record<string, Record<string, Operation>>;
}): number {
  let authenticated = 0;
  for (const [name, operation] of operations(document)) {
    const { responses } = operation;
    if (operation.security?.length === 0) {
      assert.doesNotMatch(JSON.stringify(responses), /client not allowed|issuer keys/i, name);
      continue;
    }
    authenticated += 1;
    assert.ok(responses['401'], `${name} 401`);
    assert.match(responses['403']?.description ?? '', /client not allowed/i, `${name} 403`);
    assert.match(responses['503']?.description ?? '', /issuer keys unavailable/i, `${name} 503`);
    assert.ok(responses['503']?.headers?.['Retry-After'], `${name} 503 Retry-After`);
  }
  return authenticated;
}
