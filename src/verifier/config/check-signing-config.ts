// Cross-field rules of signing keys and credential profiles (verifier contract §3.6), checked before any issuance.
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import { hint } from '../../platform/config/did-you-mean.ts';
import type { VerifierConfig } from './schema.ts';

const issue = (path: string, message: string, code = 'config.validation_error'): ConfigIssue => ({
  path,
  code,
  message,
});

export function checkSigning(config: VerifierConfig): ConfigIssue[] {
  return [...checkKeys(config), ...checkProfiles(config), ...checkClaimProfiles(config)];
}

function checkKeys(config: VerifierConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  // A verifier finds the key by kid: two keys under one kid would make a credential check against either.
  const publishedBy = new Map<string, string>();
  for (const [id, signingKey] of Object.entries(config.evidence.signing_keys)) {
    const path = `evidence.signing_keys.${id}`;
    if (signingKey.provider === 'local_jwk_env' && !signingKey.private_jwk_env) {
      issues.push(issue(`${path}.private_jwk_env`, 'is required for the local_jwk_env provider'));
    }
    if (signingKey.provider === 'file_watch' && !signingKey.path) {
      issues.push(issue(`${path}.path`, 'is required for the file_watch provider'));
    }
    const other = publishedBy.get(signingKey.kid);
    if (other !== undefined) {
      issues.push(
        issue(
          `${path}.kid`,
          `kid \`${signingKey.kid}\` is published by signing key ${other} too`,
          'config.duplicate_id',
        ),
      );
    } else {
      publishedBy.set(signingKey.kid, id);
    }
  }
  return issues;
}

function checkProfiles(config: VerifierConfig): ConfigIssue[] {
  const { signing_keys: keys, credential_profiles: profiles, claims } = config.evidence;
  const issues: ConfigIssue[] = [];
  const claimIds = claims.map((claim) => claim.id);
  for (const [id, profile] of Object.entries(profiles)) {
    const path = `evidence.credential_profiles.${id}`;
    const signingKey = Object.hasOwn(keys, profile.signing_key) ? keys[profile.signing_key] : undefined;
    if (!signingKey) {
      issues.push(
        issue(
          `${path}.signing_key`,
          `unknown signing key \`${profile.signing_key}\`${hint(profile.signing_key, Object.keys(keys))}`,
        ),
      );
    } else {
      const did = signingKey.kid.split('#')[0] as string;
      if (!issuerMatches(profile.issuer, did)) {
        issues.push(
          issue(
            `${path}.issuer`,
            `must be the DID of signing key ${profile.signing_key} (${did}), or its https origin`,
          ),
        );
      }
    }
    if (profile.validity_seconds > config.evidence.max_credential_validity_seconds) {
      issues.push(issue(`${path}.validity_seconds`, 'exceeds evidence.max_credential_validity_seconds'));
    }
    profile.allowed_claims.forEach((claimId, c) => {
      const claim = claims.find((candidate) => candidate.id === claimId);
      if (!claim) {
        issues.push(
          issue(`${path}.allowed_claims.${c}`, `unknown claim \`${claimId}\`${hint(claimId, claimIds)}`),
        );
      } else if (!claim.credential_profiles.includes(id)) {
        issues.push(
          issue(
            `${path}.allowed_claims.${c}`,
            `claim \`${claimId}\` does not list ${id} in its credential_profiles`,
          ),
        );
      }
    });
  }
  return issues;
}

/** The claim side of the two-way link: a claim names only profiles that allow it. */
function checkClaimProfiles(config: VerifierConfig): ConfigIssue[] {
  const profiles = config.evidence.credential_profiles;
  return config.evidence.claims.flatMap((claim, c) =>
    claim.credential_profiles.flatMap((id, p) => {
      const profile = Object.hasOwn(profiles, id) ? profiles[id] : undefined;
      // An unknown profile is reported with the claim's other checks.
      if (!profile || profile.allowed_claims.includes(claim.id)) return [];
      return [
        issue(
          `evidence.claims.${c}.credential_profiles.${p}`,
          `credential profile ${id} does not list \`${claim.id}\` in its allowed_claims`,
        ),
      ];
    }),
  );
}

/** The issuer is the key's DID, or the https origin a did:web DID names (`did:web:host%3A8443` is host:8443). */
function issuerMatches(issuer: string, did: string): boolean {
  if (issuer === did) return true;
  if (!issuer.startsWith('https://') || !did.startsWith('did:web:')) return false;
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return false;
  }
  const host = decodedHost(did.slice('did:web:'.length).split(':')[0] as string);
  return (
    host !== undefined && url.host === host.toLowerCase() && (url.pathname === '/' || url.pathname === '')
  );
}

/** A did:web host, percent-decoded; undefined when it is not valid percent-encoding (then no origin matches). */
function decodedHost(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}
