// Cross-field rules of the verifier config, each a small named check; all issues are collected.

import { parse as parseCel } from '@bufbuild/cel';
import { bindsMayClash } from '../../platform/config/bind-address.ts';
import { checkAuditBlock } from '../../platform/config/check-audit-block.ts';
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import { hint } from '../../platform/config/did-you-mean.ts';
import { checkOidcBlock } from '../../platform/config/oidc-config-schema.ts';
import { checkTrustProxyBlock } from '../../platform/config/trust-proxy-schema.ts';
import { checkCelReferences } from '../claims/check-cel-references.ts';
import {
  dependencyCycles,
  dependencyDepths,
  MAX_DEPENDENCY_DEPTH,
  walkDependencies,
} from '../claims/walk-dependencies.ts';
import { connectDenial, isMetadataHostName, schemeDenial } from '../connectors/classify-address.ts';
import { checkClaimInputs } from './check-claim-inputs.ts';
import { checkClaimPurposes } from './check-claim-purposes.ts';
import { checkSigning } from './check-signing-config.ts';
import { type ClaimConfig, SD_JWT_MEDIA_TYPE, type VerifierConfig } from './schema.ts';

type Check = (config: VerifierConfig) => ConfigIssue[];

export const VERIFIER_CONFIG_CHECKS: readonly Check[] = [
  checkAdminBind,
  (config) => checkTrustProxyBlock(config.server.trust_proxy),
  checkAuthMode,
  checkCredentialIds,
  (config) => checkAuditBlock(config.audit),
  checkClaimIds,
  checkClaimGraph,
  checkClaims,
  checkClaimInputs,
  checkClaimPurposes,
  checkConnections,
  checkSigning,
  checkState,
];

export function checkVerifierConfig(config: VerifierConfig): ConfigIssue[] {
  return VERIFIER_CONFIG_CHECKS.flatMap((check) => check(config));
}

const issue = (path: string, message: string, code = 'config.validation_error'): ConfigIssue => ({
  path,
  code,
  message,
});

/** Admin routes must never share the public listener. */
function checkAdminBind(config: VerifierConfig): ConfigIssue[] {
  const { bind, admin_bind: adminBind } = config.server;
  if (adminBind === undefined || !bindsMayClash(adminBind, bind)) return [];
  return [
    issue(
      'server.admin_bind',
      'must not be the listener of server.bind (the same port on the same or an overlapping address): admin routes never share the public listener',
    ),
  ];
}

function checkAuthMode(config: VerifierConfig): ConfigIssue[] {
  const { auth } = config;
  const issues: ConfigIssue[] = [];
  if (auth.mode === 'api_key') {
    if (auth.oidc) issues.push(issue('auth.oidc', 'must be absent when auth.mode is api_key'));
    if (auth.api_keys.length + auth.bearer_tokens.length === 0) {
      issues.push(
        issue('auth', 'configure at least one of api_keys and bearer_tokens (the verifier fails closed)'),
      );
    }
    return issues;
  }
  if (auth.api_keys.length > 0) issues.push(issue('auth.api_keys', 'must be empty when auth.mode is oidc'));
  if (auth.bearer_tokens.length > 0)
    issues.push(issue('auth.bearer_tokens', 'must be empty when auth.mode is oidc'));
  if (!auth.oidc) return [...issues, issue('auth.oidc', 'is required when auth.mode is oidc')];
  return [...issues, ...checkOidcBlock(auth.oidc)];
}

function checkCredentialIds(config: VerifierConfig): ConfigIssue[] {
  const seen = new Set<string>();
  const issues: ConfigIssue[] = [];
  for (const list of ['api_keys', 'bearer_tokens'] as const) {
    config.auth[list].forEach((credential, index) => {
      if (seen.has(credential.id)) {
        issues.push(
          issue(
            `auth.${list}.${index}.id`,
            `duplicate credential id \`${credential.id}\``,
            'config.duplicate_id',
          ),
        );
      }
      seen.add(credential.id);
    });
  }
  return issues;
}

function checkClaimIds(config: VerifierConfig): ConfigIssue[] {
  const seen = new Set<string>();
  const issues: ConfigIssue[] = [];
  config.evidence.claims.forEach((claim, index) => {
    if (seen.has(claim.id)) {
      issues.push(
        issue(`evidence.claims.${index}.id`, `duplicate claim id \`${claim.id}\``, 'config.duplicate_id'),
      );
    }
    seen.add(claim.id);
  });
  return issues;
}

function checkClaimGraph(config: VerifierConfig): ConfigIssue[] {
  const ids = config.evidence.claims.map((claim) => claim.id);
  const byId = new Map(config.evidence.claims.map((claim) => [claim.id, claim]));
  const issues: ConfigIssue[] = [];
  config.evidence.claims.forEach((claim, c) => {
    const listed = new Set<string>();
    claim.depends_on.forEach((dependency, d) => {
      const path = `evidence.claims.${c}.depends_on.${d}`;
      const found = byId.get(dependency);
      const repeated = listed.has(dependency);
      listed.add(dependency);
      if (repeated) {
        issues.push(issue(path, `\`${dependency}\` is already listed`));
      } else if (!found) {
        issues.push(issue(path, `unknown claim \`${dependency}\`${hint(dependency, ids)}`));
      } else if (found.subject_type !== claim.subject_type) {
        // Its lookups would run on the parent's target: a record found by that target's identifier belongs to
        // whoever holds it (the reason a request's target must be of the claim's type).
        issues.push(
          issue(
            path,
            `claim \`${dependency}\` is about subjects of type ${found.subject_type}, not ${claim.subject_type}: a sub-claim is evaluated for its parent’s target`,
          ),
        );
      }
    });
  });
  const dependencies = new Map(config.evidence.claims.map((claim) => [claim.id, claim.depends_on]));
  const cycles = dependencyCycles(dependencies);
  for (const cycle of cycles) {
    const index = ids.indexOf(cycle[0] as string);
    issues.push(
      issue(`evidence.claims.${index}.depends_on`, `dependency cycle: ${shortChain(cycle).join(' -> ')}`),
    );
  }
  if (cycles.length > 0) return issues;
  const { order } = walkDependencies(dependencies);
  return [...issues, ...checkDependencyDepth(config, dependencies, order)];
}

/** A chain of claim ids as a message shows it: a long one by its ends. */
function shortChain(chain: readonly string[]): readonly string[] {
  return chain.length > 6 ? [...chain.slice(0, 3), '...', ...chain.slice(-2)] : chain;
}

/**
 * Each claim on top of a chain deeper than MAX_DEPENDENCY_DEPTH (a claim within it is below one that is reported):
 * every level is evaluated on each request, and the walks over the chain must stay bounded.
 */
function checkDependencyDepth(
  config: VerifierConfig,
  dependencies: ReadonlyMap<string, readonly string[]>,
  order: readonly string[],
): ConfigIssue[] {
  const depths = dependencyDepths(dependencies, order);
  const below = new Set(config.evidence.claims.flatMap((claim) => claim.depends_on));
  const issues: ConfigIssue[] = [];
  config.evidence.claims.forEach((claim, c) => {
    const depth = depths.get(claim.id)?.depth ?? 0;
    if (depth <= MAX_DEPENDENCY_DEPTH || below.has(claim.id)) return;
    const chain = [claim.id];
    for (let id = depths.get(claim.id)?.via; id !== undefined; id = depths.get(id)?.via) chain.push(id);
    issues.push(
      issue(
        `evidence.claims.${c}.depends_on`,
        `claim \`${claim.id}\` has sub-claims ${depth} levels deep (${shortChain(chain).join(' -> ')}); at most ${MAX_DEPENDENCY_DEPTH}`,
      ),
    );
  });
  return issues;
}

function checkClaims(config: VerifierConfig): ConfigIssue[] {
  return config.evidence.claims.flatMap((claim, c) => checkClaim(config, claim, `evidence.claims.${c}`));
}

function checkClaim(config: VerifierConfig, claim: ClaimConfig, base: string): ConfigIssue[] {
  const issues = [...checkRule(config, claim, base), ...checkDisclosure(claim, base)];
  claim.credential_profiles.forEach((profile, p) => {
    const profiles = Object.keys(config.evidence.credential_profiles);
    if (!profiles.includes(profile)) {
      issues.push(
        issue(
          `${base}.credential_profiles.${p}`,
          `unknown credential profile \`${profile}\`${hint(profile, profiles)}`,
        ),
      );
    }
  });
  if (claim.formats.includes(SD_JWT_MEDIA_TYPE) && claim.credential_profiles.length === 0) {
    issues.push(issue(`${base}.formats`, `${SD_JWT_MEDIA_TYPE} needs at least one credential profile`));
  }
  return issues;
}

function checkRule(config: VerifierConfig, claim: ClaimConfig, base: string): ConfigIssue[] {
  const rule = claim.rule;
  const aliases = Object.keys(claim.source_bindings);
  const issues: ConfigIssue[] = [];
  if (rule.type === 'exists' || rule.type === 'extract') {
    const binding = claim.source_bindings[rule.source];
    if (!binding) {
      issues.push(
        issue(`${base}.rule.source`, `no source binding \`${rule.source}\`${hint(rule.source, aliases)}`),
      );
    } else if (rule.type === 'extract' && !binding.fields.includes(rule.field)) {
      issues.push(
        issue(
          `${base}.rule.field`,
          `\`${rule.field}\` must be listed in source_bindings.${rule.source}.fields`,
        ),
      );
    }
    for (const alias of aliases) {
      if (alias !== rule.source)
        issues.push(issue(`${base}.source_bindings.${alias}`, `is not read by the ${rule.type} rule`));
    }
    if (rule.type === 'exists' && !['boolean', 'any'].includes(claim.value.type)) {
      issues.push(issue(`${base}.value.type`, 'an exists rule yields a boolean'));
    }
  }
  if (rule.type === 'cel') {
    const limit = config.cel.max_expression_bytes;
    if (Buffer.byteLength(rule.expression, 'utf8') > limit) {
      issues.push(issue(`${base}.rule.expression`, `is longer than cel.max_expression_bytes (${limit})`));
    } else {
      let parsed: ReturnType<typeof parseCel> | undefined;
      try {
        parsed = parseCel(rule.expression);
      } catch (error) {
        issues.push(
          issue(`${base}.rule.expression`, `does not parse: ${(error as Error).message.split('\n')[0]}`),
        );
      }
      if (parsed) {
        const scope = {
          sources: new Map(Object.entries(claim.source_bindings).map(([alias, b]) => [alias, b.fields])),
          // Without explicit aliases every dependency is bound under its own id (apply-rule.ts).
          claims: aliasesOf(rule.bindings.claims, claim.depends_on),
        };
        for (const problem of checkCelReferences(parsed.expr, scope)) {
          issues.push(issue(`${base}.rule.expression`, problem));
        }
      }
    }
    for (const [alias, ref] of Object.entries(rule.bindings.claims)) {
      if (!claim.depends_on.includes(ref.claim)) {
        issues.push(
          issue(
            `${base}.rule.bindings.claims.${alias}.claim`,
            `\`${ref.claim}\` must be listed in depends_on`,
          ),
        );
      }
    }
  }
  return issues;
}

function aliasesOf(bound: Readonly<Record<string, unknown>>, dependsOn: readonly string[]): string[] {
  const aliases = Object.keys(bound);
  return aliases.length > 0 ? aliases : [...dependsOn];
}

function checkDisclosure(claim: ClaimConfig, base: string): ConfigIssue[] {
  const { disclosure } = claim;
  const issues: ConfigIssue[] = [];
  if (!disclosure.allowed.includes(disclosure.default)) {
    issues.push(
      issue(`${base}.disclosure.default`, `\`${disclosure.default}\` must be one of disclosure.allowed`),
    );
  }
  if (claim.value.type !== 'boolean' && disclosure.allowed.includes('predicate')) {
    issues.push(
      issue(`${base}.disclosure.allowed`, '`predicate` needs value.type boolean (a predicate holds or not)'),
    );
  }
  return issues;
}

function checkConnections(config: VerifierConfig): ConfigIssue[] {
  return Object.entries(config.evidence.source_connections).flatMap(([id, connection]) => {
    const path = `evidence.source_connections.${id}.base_url`;
    const url = new URL(connection.base_url);
    const issues: ConfigIssue[] = [];
    const scheme = schemeDenial(url, connection);
    if (scheme) issues.push(issue(path, scheme));
    if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
      issues.push(issue(path, 'must not carry a query, fragment or credentials'));
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const literal = /^[\d.]+$/.test(host) || host.includes(':');
    // A name is judged when it is resolved, at each connect (plain http to a public address included).
    const denial = literal ? connectDenial(host, url.protocol, connection) : undefined;
    if (denial) issues.push(issue(path, denial));
    if (!literal && isMetadataHostName(host) && !connection.allow_link_local) {
      issues.push(issue(path, 'names a cloud metadata host'));
    }
    if (connection.coalesce_reads && connection.bulk_mode !== 'rda_in_filter') {
      issues.push(
        issue(
          `evidence.source_connections.${id}.coalesce_reads`,
          'needs bulk_mode: rda_in_filter (reads are coalesced into `.in` requests)',
        ),
      );
    }
    if (connection.retry.base_delay > connection.retry.max_delay) {
      issues.push(
        issue(`evidence.source_connections.${id}.retry.base_delay`, 'must not exceed retry.max_delay'),
      );
    }
    return issues;
  });
}

function checkState(config: VerifierConfig): ConfigIssue[] {
  if (config.state.storage !== 'postgresql') {
    const issues: ConfigIssue[] = [];
    // Ignored, it would leave each instance with state of its own (renders 404 elsewhere, keys not shared).
    if (config.state.postgresql) {
      issues.push(
        issue(
          'state.postgresql',
          'must be absent when state.storage is memory (the default); set state.storage: postgresql to use it',
        ),
      );
    }
    // Oldest dropped first: a batch answer would name evaluation ids already gone.
    const batchLimit = config.evidence.inline_batch_limit;
    if (config.state.max_memory_evaluations < batchLimit) {
      issues.push(
        issue(
          'state.max_memory_evaluations',
          `must be at least evidence.inline_batch_limit (${batchLimit}): a batch stores one evaluation per item, and the store would drop its first items while storing it`,
        ),
      );
    }
    return issues;
  }
  const issues: ConfigIssue[] = [];
  if (!config.state.postgresql)
    issues.push(issue('state.postgresql', 'is required when state.storage is postgresql'));
  return issues;
}
