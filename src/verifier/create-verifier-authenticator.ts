// The verifier's one auth mode as a request stage: static credentials by fingerprint, or OIDC access tokens.
// Sending both `Authorization` and `x-api-key` is refused (400 auth.multiple_credentials).
import type { RouteRequest } from '../platform/http/route-types.ts';
import { createApiKeyAuthenticator } from '../platform/auth/api-key.ts';
import { createOidcAuthenticator } from '../platform/auth/oidc-bearer.ts';
import type { Principal } from '../platform/auth/principal.ts';
import { readCredential } from '../platform/auth/read-credential.ts';
import type { Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/log.ts';
import { platformProblem } from '../platform/problem/platform-problems.ts';
import type { VerifierSecrets } from './config/resolve-verifier-secrets.ts';
import type { VerifierConfig } from './config/schema.ts';

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
      const credential = readCredential(request.headers, { rejectBoth: true });
      const found =
        credential.header === 'authorization'
          ? bearerOnly(credential.secret, request.socket)
          : anyHeader(credential.secret, request.socket);
      const principal: Principal = bearerIds.has(found.id) ? { ...found, authMode: 'static' } : found;
      request.ctx.principal = principal;
      return principal;
    };
  }
  const oidc = createOidcAuthenticator(config.auth.oidc as NonNullable<VerifierConfig['auth']['oidc']>, deps);
  return async (request) => {
    const credential = readCredential(request.headers, { rejectBoth: true });
    if (credential.header !== 'authorization') {
      throw platformProblem(
        'auth.malformed_credential',
        'this verifier accepts `Authorization: Bearer <access token>`',
      );
    }
    const principal = await oidc.authenticate(credential.secret);
    request.ctx.principal = principal;
    return principal;
  };
}
