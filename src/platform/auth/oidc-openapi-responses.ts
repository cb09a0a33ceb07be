// What the OIDC token check answers besides 401, for the runtime OpenAPI documents: every operation that
// authenticates may also refuse a token issued to a client outside `allowed_clients` (403
// `auth.client_not_allowed`) and fail while the issuer keys cannot be fetched (503 `auth.jwks_unavailable`).

import { mapOperations, type OpenApiOperation } from '../http/openapi-operations.ts';

/** By status, the case each adds to an operation's own reasons for that status. */
const OIDC_RESPONSES: Readonly<Record<string, string>> = {
  '403': 'token client not allowed',
  '503': 'issuer keys unavailable',
};

/** The 503 says when the issuer will be asked again. */
const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'string' } },
};

/** `paths` with the OIDC responses added to every operation that authenticates (those without `security: []`). */
export function withOidcAuthResponses(
  paths: Record<string, unknown>,
  problem: (description: string) => object,
): Record<string, unknown> {
  return mapOperations(paths, (op: OpenApiOperation): OpenApiOperation => {
    if (op.security?.length === 0) return op;
    const responses: Record<string, unknown> = { ...op.responses };
    for (const [status, reason] of Object.entries(OIDC_RESPONSES)) {
      const own = responses[status] as { description?: string; headers?: object } | undefined;
      // The operation's own response keeps its other members (its own headers among them).
      responses[status] = {
        ...own,
        ...problem(own?.description === undefined ? capitalised(reason) : `${own.description}, or ${reason}`),
        ...(status === '503' ? { headers: { ...own?.headers, ...RETRY_AFTER } } : {}),
      };
    }
    return { ...op, responses };
  });
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
