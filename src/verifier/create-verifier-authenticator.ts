// The verifier's one auth mode as a request stage: static credentials by fingerprint, or OIDC access tokens.
// Sending both `Authorization` and `x-api-key` is refused (400 auth.multiple_credentials).

import { createApiKeyAuthenticator } from '../platform/auth/api-key.ts';
import { createOidcAuthenticator } from '../platform/auth/oidc-bearer.ts';
import type { Principal } from '../platform/auth/principal.ts';
import { readCredential } from '../platform/auth/read-credential.ts';
import type { Clock } from '../platform/clock.ts';
import type { RouteRequest } from '../platform/http/route-types.ts';
import type { Logger } from '../platform/log.ts';
import { platformProblem } from '../platform/problem/platform-problems.ts';
import { isProblem } from '../platform/problem/problem.ts';
import type { VerifierSecrets } from './config/resolve-verifier-secrets.ts';
import type { VerifierConfig } from './config/schema.ts';
import { verifierProblem } from './problems.ts';
import { auditFacts } from './verifier-runtime.ts';

/** The caller's principal: at once for static credentials, after the token check for OIDC. */
export type Authenticate = (request: RouteRequest) => Principal | Promise<Principal>;

export function createVerifierAuthenticator(
  config: VerifierConfig,
  secrets: VerifierSecrets,
  deps: { clock: Clock; fetch?: typeof fetch; logger: Logger },
): Authenticate {
  if (config.auth.mode === 'api_key') {
    // API keys are accepted in either header; bearer tokens only in Authorization.
    const anyHeader = createApiKeyAuthenticator(secrets.apiKeys);
    const bearerOnly = createApiKeyAuthenticator([...secrets.apiKeys, ...secrets.bearerTokens]);
    const bearerIds = new Set(secrets.bearerTokens.map((entry) => entry.id));
    return (request) => {
      const credential = asContractCodes(request, STATIC_DETAIL, () =>
        readCredential(request.headers, { rejectBoth: true }),
      );
      const found = asContractCodes(request, STATIC_DETAIL, () =>
        credential.header === 'authorization'
          ? bearerOnly(credential.secret, request.socket)
          : anyHeader(credential.secret, request.socket),
      );
      const principal: Principal = bearerIds.has(found.id) ? { ...found, authMode: 'static' } : found;
      request.ctx.principal = principal;
      return principal;
    };
  }
  const oidc = createOidcAuthenticator(config.auth.oidc as NonNullable<VerifierConfig['auth']['oidc']>, deps);
  return async (request) => {
    const credential = asContractCodes(request, TOKEN_DETAIL, () =>
      readCredential(request.headers, { rejectBoth: true }),
    );
    if (credential.header !== 'authorization') throw platformProblem('auth.missing_credential', TOKEN_DETAIL);
    let principal: Principal;
    try {
      principal = await oidc.authenticate(credential.secret);
    } catch (error) {
      throw tokenProblem(request, error);
    }
    request.ctx.principal = principal;
    return principal;
  };
}

const STATIC_DETAIL = 'Send a valid `x-api-key` or `Authorization: Bearer` credential.';
const TOKEN_DETAIL = 'Send `Authorization: Bearer <access token>`.';

/**
 * The verifier's contract answers a credential that is absent, malformed or unknown alike, 401
 * `auth.missing_credential` with one detail: a caller learns nothing about which keys exist. (The relay's contract
 * names each.)
 */
function asContractCodes<T>(request: RouteRequest, detail: string, authenticate: () => T): T {
  try {
    return authenticate();
  } catch (error) {
    if (isProblem(error) && CREDENTIAL_CODES.has(error.code)) {
      // The audit keeps the precise reason (its error_code), the caller gets the contract's one answer.
      auditFacts(request).errorDetailCode = error.code;
      throw platformProblem('auth.missing_credential', detail);
    }
    throw error;
  }
}

const CREDENTIAL_CODES: ReadonlySet<string> = new Set([
  'auth.missing_credential',
  'auth.invalid_credential',
  'auth.malformed_credential',
]);

/** Every 401 of the token check is the contract's `auth.invalid_token`, its detail saying why. */
function tokenProblem(request: RouteRequest, error: unknown): unknown {
  if (!isProblem(error) || error.status !== 401 || error.code === 'auth.missing_credential') return error;
  auditFacts(request).errorDetailCode = error.code;
  return verifierProblem('auth.invalid_token', error.detail, { headers: error.headers });
}
