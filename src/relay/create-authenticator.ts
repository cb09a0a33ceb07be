// The one auth mode of a deployment as a request stage: API key or OIDC bearer token.
import { createApiKeyAuthenticator } from '../platform/auth/api-key.ts';
import { createOidcAuthenticator } from '../platform/auth/oidc-bearer.ts';
import type { Principal } from '../platform/auth/principal.ts';
import { readCredential } from '../platform/auth/read-credential.ts';
import type { Clock } from '../platform/clock.ts';
import type { RouteRequest } from '../platform/http/route-types.ts';
import type { Logger } from '../platform/log.ts';
import { platformProblem } from '../platform/problem/platform-problems.ts';
import type { RelaySecrets } from './config/resolve-relay-secrets.ts';
import type { RelayConfig } from './config/schema.ts';

const API_KEY_HEADERS = {
  missingDetail: 'Send `Authorization: Bearer <key>` or `x-api-key: <key>`.',
};
const TOKEN_HEADER = { missingDetail: 'Send `Authorization: Bearer <access token>`.' };

export function createAuthenticator(
  config: RelayConfig,
  secrets: RelaySecrets,
  deps: { clock: Clock; fetch?: typeof fetch; logger: Logger },
): (request: RouteRequest) => Principal | Promise<Principal> {
  if (config.auth.mode === 'api_key') {
    const check = createApiKeyAuthenticator(secrets.apiKeys);
    // Synchronous: a key check needs no I/O, and every request would otherwise pay for a promise.
    return (request) => {
      const principal = check(readCredential(request.headers, API_KEY_HEADERS).secret, request.socket);
      request.ctx.principal = principal;
      return principal;
    };
  }
  const oidc = createOidcAuthenticator(config.auth.oidc as NonNullable<RelayConfig['auth']['oidc']>, deps);
  return async (request) => {
    const credential = readCredential(request.headers, TOKEN_HEADER);
    if (credential.header !== 'authorization') {
      // OIDC deployments take bearer tokens only; an API-key header is a credential of the wrong kind.
      throw platformProblem(
        'auth.malformed_credential',
        'this relay accepts `Authorization: Bearer <access token>`',
      );
    }
    const principal = await oidc.authenticate(credential.secret);
    request.ctx.principal = principal;
    return principal;
  };
}
