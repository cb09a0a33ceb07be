// The `auth.oidc` config block both services accept: issuer, keys, audiences, algorithms and scope mapping.
import { z } from 'zod';
import { isAllowedFetchUrl } from '../auth/is-loopback-url.ts';
import type { ConfigIssue } from './config-error.ts';
import { durationMs } from './duration.ts';

// Generous limits, so only a value pasted by mistake is refused: the lists are searched for every token checked.
const URL_MAX = 2048;
const SCOPE_MAX = 256;
const LIST_MAX = 1000;
const scopeName = z.string().max(SCOPE_MAX);

export const oidcConfigSchema = z.strictObject({
  issuer: z
    .url()
    .max(URL_MAX)
    .describe(
      'The `iss` tokens must carry; https (http only on loopback with allow_dev_insecure_fetch_urls).',
    ),
  audiences: z
    .array(z.string().min(1).max(URL_MAX))
    .min(1)
    .max(LIST_MAX)
    .describe('A token must name one of these in `aud`.'),
  jwks_url: z
    .url()
    .max(URL_MAX)
    .optional()
    .describe('The issuer key set; exactly one of jwks_url and discovery_url; https as for issuer.'),
  discovery_url: z
    .url()
    .max(URL_MAX)
    .optional()
    .describe(
      'OpenID discovery document naming the key set (its `issuer` must match, its `jwks_uri` follows the same https rule).',
    ),
  allowed_algorithms: z
    .array(z.enum(['RS256', 'ES256', 'EdDSA', 'Ed25519']))
    .min(1)
    .max(4)
    .default(['RS256', 'ES256', 'EdDSA', 'Ed25519'])
    .describe(
      'The algorithms a token may be signed with (its `alg`); `EdDSA` also admits `Ed25519`, the same signature by its fully-specified name (RFC 9864).',
    ),
  jwks_cache_ttl: durationMs({ min: 1000, max: 86_400_000 })
    .default(600_000)
    .describe('How long a fetched key set is used before it is fetched again (1s to 1d).'),
  leeway: durationMs({ min: 0, max: 300_000 })
    .default(30_000)
    .describe('Clock skew allowed on exp, nbf and iat (0 to 5m).'),
  scope_claim: z
    .string()
    .trim()
    .min(1)
    .max(SCOPE_MAX)
    .default('scope')
    .describe('The token claim holding the granted scopes; not `aud`.'),
  scope_map: z
    .record(
      scopeName,
      z
        .union([scopeName, z.array(scopeName)], { error: 'must be a scope name or a list of scope names' })
        // After the union: a list too long inside it would be reported as neither a name nor a list.
        .refine((mapped) => typeof mapped === 'string' || mapped.length <= LIST_MAX, {
          message: `must list at most ${LIST_MAX} items`,
        }),
    )
    .refine((map) => Object.keys(map).length <= LIST_MAX, `must map at most ${LIST_MAX} scope names`)
    .default({})
    .describe(
      `Renames a token scope to one scope or several; a scope not listed is kept as it is. At most ${LIST_MAX} names, each mapped to at most ${LIST_MAX} scopes of at most ${SCOPE_MAX} characters.`,
    ),
  allowed_clients: z
    .array(z.string().min(1).max(URL_MAX))
    .max(LIST_MAX)
    .default([])
    .describe(
      'When not empty, the token `azp` or `client_id` must be one of these (else 403 auth.client_not_allowed).',
    ),
  allowed_token_types: z
    .array(z.string().min(1).max(128))
    .min(1)
    .max(16)
    .default(['JWT', 'at+jwt'])
    .describe(
      'The token header `typ` values accepted (case-insensitive, `application/` optional; no `typ` counts as `JWT`). `[at+jwt]` alone also refuses ID tokens, where the issuer marks its access tokens so (RFC 9068).',
    ),
  allow_dev_insecure_fetch_urls: z
    .boolean()
    .default(false)
    .describe('Development only: plain http to loopback issuers, discovery documents and key sets.'),
});

export type OidcBlock = z.infer<typeof oidcConfigSchema>;

const issue = (path: string, message: string): ConfigIssue => ({
  path,
  code: 'config.validation_error',
  message,
});

/** Cross-field rules of `auth.oidc`, one set for both services so neither accepts what the other refuses. */
export function checkOidcBlock(oidc: OidcBlock): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if ((oidc.jwks_url === undefined) === (oidc.discovery_url === undefined)) {
    issues.push(issue('auth.oidc', 'set exactly one of jwks_url and discovery_url'));
  }
  for (const key of ['issuer', 'jwks_url', 'discovery_url'] as const) {
    const url = oidc[key];
    if (url !== undefined && !isAllowedFetchUrl(url, oidc.allow_dev_insecure_fetch_urls)) {
      issues.push(
        issue(
          `auth.oidc.${key}`,
          'must use https (http only on loopback with allow_dev_insecure_fetch_urls)',
        ),
      );
    }
  }
  // `aud` names the token's audiences: reading it as scopes would grant whatever the audience is called.
  if (oidc.scope_claim === 'aud') issues.push(issue('auth.oidc.scope_claim', 'cannot be `aud`'));
  return issues;
}
